"""``agentgym eval ENV --agent "PROGRAM ARGS"``: the held-out split played by an agent program.

For envs that run only through an agent program behind the token-exact gateway (a
``verifiers:`` env with its own Env class or harness, ``loop: true``; any agent that talks to
the env over MCP), the episodes are played by the trainer's own gateway collector, greedy, as
``rollout_source: gateway`` evaluates them (docs/gateway.md). The trainers register that
collector as the ``gateway-eval`` service; the core looks it up by that name, so it never
imports a trainer. The results have the normal evaluation's format (``results.json``,
``report.md``, the viewer), aborted episodes counted as aborted, not as failures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, NameNotFound, TaskError
from ..policies.base import Policy
from ..policies.loader import load_policy
from ..registry import spec
from ..rollout.limits import resolve_max_turns
from ..rollout.trajectory import Trajectory

SERVICE = "gateway-eval"
"""Name of the trainers' gateway collector in the ``services`` registry."""
ENGINE_ONLY = ("scripted", "replay")
"""Policies that answer only inside the engine's episodes (they read its episode context)."""


@dataclass
class GatewayEval:
    """An evaluation through the gateway: the env, the policy, the agent and its settings."""

    env_id: str
    """Registered env id or alias."""
    policy: str
    """Policy spec the gateway serves (``hf:...`` records token-exact episodes)."""
    gateway: dict[str, Any]
    """The ``gateway:`` section of a train config (``agent``, ``reward``, ``sandbox``...)."""
    split: str = "test"
    """Task split; held-out by default."""
    n: int | None = None
    """Number of tasks, a seeded sample spread over the split; all when None."""
    seed: int = 0
    """Seed of the task sample."""
    max_turns: int | None = None
    """Turn limit of the reward replay (default: the env's)."""
    max_new_tokens: int = 256
    """New tokens per model call."""
    max_tokens: int = 4096
    """Context limit of one model call (prompt and reply)."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Extra keyword arguments for ``agentgym.make`` (the MCP server and the reward replay)."""


def _one_per_episode(trajs: list[Trajectory]) -> list[Trajectory]:
    """The last branch of each task's episode (what the trainer's evaluation scores)."""
    return list({t.task_id: t for t in trajs}.values())


def run_gateway_eval(config: GatewayEval, out: Path | None = None, policy: Policy | None = None,
                     on_start: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play one greedy episode per task through the gateway; the results dict (and ``out``).

    ``on_start`` gets the number of episodes once the tasks are chosen."""
    from ..plugins import get_registry
    from ..rollout.evaluate import eval_results, select_tasks

    env_spec = spec(config.env_id)
    max_turns = resolve_max_turns(config.max_turns, env_spec.max_turns)
    task_ids = select_tasks(env_spec.id, config.split, config.n, config.env_kwargs, config.seed)
    if any(t is None for t in task_ids):
        raise TaskError(f"{env_spec.id} has no task set: an agent program needs task ids "
                        "(AGENTGYM_TASK_ID)")
    if not task_ids:
        raise TaskError(f"{env_spec.id} has no tasks in split {config.split!r}")
    try:
        collect = get_registry("services").load(SERVICE)
    except NameNotFound as e:
        raise ConfigError("--agent plays through the trainers' gateway collector (the "
                          f"{SERVICE!r} service of agentgym's trainers plugin): {e}") from e
    if on_start is not None:
        on_start(len(task_ids))
    the_policy = policy or load_policy(config.policy)
    try:
        if the_policy.name in ENGINE_ONLY:
            raise ConfigError(f"the {the_policy.name} policy plays from the engine's episode "
                              "context (the task's recorded actions), which an agent's model "
                              "calls do not carry: pass a model with --policy (hf:..., "
                              "openai:...)")
        t0 = time.monotonic()
        trajs = _one_per_episode(collect(
            env_spec.id, the_policy, [str(t) for t in task_ids], split=config.split,
            gateway=config.gateway, max_turns=max_turns, max_new_tokens=config.max_new_tokens,
            max_tokens=config.max_tokens, env_kwargs=config.env_kwargs))
        wall = time.monotonic() - t0
        described = the_policy.describe()
    finally:
        if policy is None:
            the_policy.close()
    results = eval_results(
        {"env_id": env_spec.id, "policy": config.policy, "split": config.split, "n": config.n,
         "k": 1, "seed": config.seed, "temperature": 0.0, "max_turns": max_turns,
         "max_new_tokens": config.max_new_tokens, "max_tokens": config.max_tokens,
         "env_kwargs": config.env_kwargs, "rollout_source": "gateway",
         "gateway": config.gateway}, described, trajs, 1, wall)
    if out is not None:
        from ..rollout.report import write_results
        from ..rollout.store import TrajectoryStore

        with TrajectoryStore(out / "trajectories", resume=False) as store:
            for t in trajs:
                store.append(t)
        write_results(out, results, trajs)
    return results


def gateway_section(agent: str, reward: str | None, scorer: str | None, sandbox: str | None,
                    pass_env: list[str], binds: list[str], mcp: bool | None,
                    timeout_s: float | None, concurrency: int) -> dict[str, Any]:
    """The ``gateway:`` section the eval options stand for (checked by the collector)."""
    section: dict[str, Any] = {"agent": agent, "concurrency": concurrency}
    for key, value in (("reward", reward), ("scorer", scorer), ("sandbox", sandbox),
                       ("mcp", mcp), ("timeout_s", timeout_s)):
        if value is not None:
            section[key] = value
    if pass_env:
        section["pass_env"] = list(pass_env)
    if binds:
        section["binds"] = [str(Path(b).resolve()) for b in binds]
    return section




def eval_through_gateway(env_id: str, policy: str, agent: str, *, split: str, n: int | None,
                         seed: int, out: str | None, overwrite: bool, max_turns: int | None,
                         max_new_tokens: int, env_kwargs: dict[str, Any],
                         num_envs: int, reward: str | None, scorer: str | None,
                         sandbox: str | None, pass_env: list[str], binds: list[str],
                         mcp: bool | None, timeout_s: float | None,
                         refused: dict[str, bool]) -> dict[str, Any]:
    """``agentgym eval --agent``: check the options, play the split, return the results."""
    from .app import err_console, fail, interrupted, run_guarded

    bad = [name for name, given in refused.items() if given]
    if bad:
        fail(f"--agent plays one greedy episode per task through the gateway; "
             f"{', '.join(bad)} cannot apply")
    if not agent.strip():
        fail("--agent: name the agent program (one shell-like string)")
    if reward is not None and reward not in ("env", "posted") and ":" not in reward:
        fail(f"--reward {reward!r}: expected env, posted or module:function")
    if reward == "posted" and not scorer:
        fail("--reward posted needs --scorer, the program that posts each episode's reward "
             "with its reward key (an agent's key cannot post one)")
    if scorer and reward != "posted":
        fail("--scorer only applies with --reward posted")
    if sandbox is not None and sandbox not in ("auto", "bubblewrap", "none"):
        fail(f"--sandbox {sandbox!r}: expected auto, bubblewrap or none")
    for path in binds:
        if not Path(path).exists():
            fail(f"--bind {path}: no such path")
    section = gateway_section(agent, reward, scorer, sandbox, pass_env, binds, mcp, timeout_s,
                              num_envs)
    config = GatewayEval(env_id, policy, section, split=split, n=n, seed=seed,
                         max_turns=max_turns, max_new_tokens=max_new_tokens,
                         env_kwargs=env_kwargs)
    folder = Path(out) if out else None
    if folder is not None:
        from ..rollout.evaluate import clear_outputs, refuse_existing

        if overwrite:
            clear_outputs(folder)
        run_guarded(refuse_existing, folder)
    def started(count: int) -> None:
        err_console.print(f"{count} episodes of {env_id} ({split}), each played by the agent "
                          "through the gateway, greedy", highlight=False, soft_wrap=True)

    try:
        return dict(run_guarded(run_gateway_eval, config, folder, on_start=started))
    except KeyboardInterrupt:  # the collector killed its agents' jails on the way out
        interrupted("interrupted; the episodes of this run are not kept")


__all__ = ["SERVICE", "GatewayEval", "eval_through_gateway", "gateway_section",
           "run_gateway_eval"]
