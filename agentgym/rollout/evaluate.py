"""Evaluation runs: K samples of N held-out tasks, stored as they finish, then summarised.

:func:`run_eval` is what ``agentgym eval`` calls. The default split is ``test``; ``n`` takes a
seeded sample spread over the split (a prefix of one fixed permutation, so a larger ``n`` with
the same seed extends a smaller one). Before the first episode the backend and the policy are
checked once (:meth:`Policy.acheck`): a dead server or a missing package is one clear error, not
a run of aborted episodes. With an output folder the run's settings go to ``run.json`` and every
trajectory is appended to a :class:`~agentgym.rollout.TrajectoryStore` inside it;
``resume=True`` skips the ``(task_id, sample_idx)`` pairs already stored (aborted episodes are
retried) and refuses a folder made with other settings. Sampling is greedy for K = 1 and at
temperature 1 for K > 1 unless told otherwise. Success rates count completed episodes only;
aborted ones (infrastructure failures) are reported beside them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import ConfigError, TaskError
from ..policies.base import Policy, SamplingParams, derive_seed
from ..policies.loader import load_policy
from ..registry import make, spec
from .engine import Engine
from .episode import EpisodeRequest, RolloutConfig
from .limits import resolve_max_turns
from .live import LiveEpisodes, WatchedPolicy
from .metrics import per_task, summarize
from .store import TrajectoryStore
from .summary import SummaryConfig
from .trajectory import Trajectory

ProgressCallback = Callable[[Trajectory], None]
BACKENDS = ("asyncio", "ray")
RUN_FILE = "run.json"
"""The settings a folder's episodes were made with (``resume`` compares them)."""
IDENTITY = ("env_id", "policy", "split", "k", "seed", "temperature", "max_turns", "max_tokens",
            "max_new_tokens", "env_kwargs", "summary_budget")
"""Settings that must match for ``resume`` to add episodes to a folder (``n`` may grow)."""


@dataclass
class EvalConfig:
    """Everything that defines an evaluation run (invalid counts raise ``ConfigError``)."""

    env_id: str
    """Registered env id or alias."""
    policy: str = "scripted"
    """Policy spec string (``hf:smollm2-135m``, ``openai:URL``, ``scripted``...)."""
    split: str = "test"
    """Task split; held-out by default."""
    n: int | None = None
    """Number of tasks, a seeded sample spread over the split; all when None."""
    k: int = 1
    """Samples per task (pass@k uses them)."""
    out: str | None = None
    """Output folder for the store, results.json and the report."""
    resume: bool = False
    """Continue a run in ``out``, skipping stored episodes."""
    backend: str = "asyncio"
    """``asyncio`` or ``ray``."""
    num_envs: int = 8
    """Env instances in the pool (also the number of concurrent episodes)."""
    max_turns: int | None = None
    """Turn limit per episode, raising or lowering the env's; default: the env spec's."""
    max_tokens: int = 4096
    """Token budget of one episode."""
    max_new_tokens: int = 256
    """New tokens per model turn."""
    temperature: float | None = None
    """Sampling temperature; default 0 (greedy) for k = 1, else 1."""
    seed: int = 0
    """Base seed of the task sample, env resets and sampling."""
    episode_timeout_s: float = 600.0
    """Wall-clock limit of one episode."""
    policy_timeout_s: float = 300.0
    """Limit of one policy turn (a batched CPU decode on a busy machine may need more)."""
    env_timeout_s: float = 60.0
    """Limit of one env reset or step (a reset that builds a task's image may need more)."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Extra keyword arguments for ``agentgym.make``."""
    summary_budget: int = 0
    """Summarised context (SUPO): past this many context tokens the policy summarises and the
    history is replaced by the task + summary (:mod:`agentgym.rollout.summary`); 0 = off."""

    def __post_init__(self) -> None:
        for name in ("n", "k", "num_envs", "max_turns", "max_tokens", "max_new_tokens"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value < 1):
                raise ConfigError(f"{name} must be at least 1, got {value}")
        if isinstance(self.summary_budget, bool) or self.summary_budget < 0:
            raise ConfigError(f"summary_budget must be 0 (off) or more, got {self.summary_budget}")
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.resume and not self.out:
            raise ConfigError("resume needs an output folder (--out)")
        if self.temperature is not None and self.temperature < 0:
            raise ConfigError(f"temperature must be >= 0, got {self.temperature}")

    @property
    def resolved_temperature(self) -> float:
        """The temperature used: as given, else 0 for k = 1 and 1 for k > 1."""
        if self.temperature is not None:
            return self.temperature
        return 0.0 if self.k == 1 else 1.0


def sample_ids(ids: list[str], n: int | None, seed: int) -> list[str]:
    """``n`` ids spread over ``ids`` (seeded), kept in split order; all of them when None.

    The sample is the first ``n`` of one seeded permutation, so it grows with ``n``.
    """
    if n is None or n >= len(ids):
        return list(ids)
    order = list(range(len(ids)))
    random.Random(f"eval-sample-{seed}").shuffle(order)
    return [ids[i] for i in sorted(order[:n])]


def select_tasks(
    env_id: str, split: str, n: int | None, env_kwargs: dict[str, Any] | None = None,
    seed: int = 0,
) -> list[str | None]:
    """Task ids of ``split`` (a seeded sample of ``n``); ``[None] * n`` for task-less envs.

    The ids come from an env instance when it exposes ``task_set`` (a variant may filter the
    family's tasks, e.g. by difficulty), else from the spec's task loader.
    """
    env = make(env_id, **{"split": split, **(env_kwargs or {})})
    try:
        own = getattr(env.unwrapped, "task_set", None)
    finally:
        env.close()
    if own is not None:
        return list(sample_ids(list(own.ids()), n, seed))
    tasks = spec(env_id).load_tasks()
    if tasks is None:
        if n is None:
            raise TaskError(f"{env_id} has no task set; pass -n to choose how many episodes")
        return [None] * n
    return list(sample_ids(list(tasks.split(split).ids()), n, seed))


def build_requests(task_ids: list[str | None], k: int, seed: int) -> list[EpisodeRequest]:
    """K requests per task; task-less envs are told apart by their reset seed."""
    out = []
    for i, task_id in enumerate(task_ids):
        name = task_id if task_id is not None else f"seed-{i}"
        for j in range(k):
            out.append(EpisodeRequest(task_id=task_id, sample_idx=j, group_id=name,
                                      seed=derive_seed(seed, name, j)))
    return out


def check_backend(backend: str) -> None:
    """Raise a one-line error when ``backend`` cannot run here (``ray`` not installed)."""
    if backend == "ray":
        from .ray_backend import require_ray

        require_ray()


def run_settings(config: EvalConfig, env_id: str, max_turns: int) -> dict[str, Any]:
    """The settings that define which episodes a folder holds (written to ``run.json``)."""
    return {"env_id": env_id, "policy": config.policy, "split": config.split, "k": config.k,
            "seed": config.seed, "temperature": config.resolved_temperature,
            "max_turns": max_turns, "max_tokens": config.max_tokens,
            "max_new_tokens": config.max_new_tokens, "env_kwargs": config.env_kwargs,
            **({"summary_budget": config.summary_budget} if config.summary_budget else {})}


def check_resume(out: Path, settings: dict[str, Any]) -> None:
    """Refuse to add episodes to ``out`` when it was made with other settings."""
    saved_path = out / RUN_FILE
    if not saved_path.exists():
        if (out / "trajectories").is_dir():
            raise ConfigError(f"cannot resume {out}: it has no {RUN_FILE} saying how its "
                              "episodes were made; choose another --out")
        return
    saved = json.loads(saved_path.read_text(encoding="utf-8"))
    saved = json.loads(json.dumps(saved))  # compare like with like (lists, not tuples)
    fresh = json.loads(json.dumps(settings))
    diff = [k for k in IDENTITY if saved.get(k) != fresh.get(k)]
    if diff:
        was = ", ".join(f"{k}={saved.get(k)!r}" for k in diff)
        now = ", ".join(f"{k}={fresh.get(k)!r}" for k in diff)
        raise ConfigError(f"cannot resume {out}: it was made with {was}; this run has {now}. "
                          "Use the same settings or another --out")


def refuse_existing(out: Path) -> None:
    """Refuse to start a fresh run in a folder that already holds episodes."""
    records = out / "trajectories" / "trajectories.jsonl"
    if records.exists() and records.stat().st_size:
        raise ConfigError(f"{out} already holds an evaluation; pass --resume to continue it, "
                          "--overwrite to replace it, or choose another --out")


def clear_outputs(out: Path) -> None:
    """Delete what an earlier evaluation wrote into ``out`` (and nothing else)."""
    import shutil

    shutil.rmtree(out / "trajectories", ignore_errors=True)
    for name in (RUN_FILE, "results.json", "report.md", "report.png"):
        (out / name).unlink(missing_ok=True)


async def arun_eval(
    config: EvalConfig, *, policy: Policy | None = None, progress: ProgressCallback | None = None,
    on_start: Callable[[int, int, int], None] | None = None,
    on_turn: Callable[[LiveEpisodes], None] | None = None,
) -> dict[str, Any]:
    """Run the evaluation and return the results dict (also written to ``out``).

    ``on_turn`` is called with the run's :class:`~agentgym.rollout.live.LiveEpisodes` after
    every model turn and every finished episode (turns, tokens/s and estimates per running
    episode, for a progress display).
    """
    env_spec = spec(config.env_id)
    check_backend(config.backend)
    max_turns = resolve_max_turns(config.max_turns, env_spec.max_turns)
    settings = run_settings(config, env_spec.id, max_turns)
    out = Path(config.out) if config.out else None
    if out is not None and config.resume:
        check_resume(out, settings)
    elif out is not None:
        refuse_existing(out)
    the_policy = policy or load_policy(config.policy)
    try:
        await the_policy.acheck()
        live = LiveEpisodes(settings["max_turns"], config.num_envs) if on_turn else None
        watched = the_policy if live is None or on_turn is None else WatchedPolicy(
            the_policy, live, lambda: on_turn(live))

        def finished(traj: Trajectory) -> None:
            if progress is not None:  # first: the display counts it done, then refreshes
                progress(traj)
            if live is not None and on_turn is not None:
                live.episode_done((traj.task_id, traj.sample_idx))
                on_turn(live)

        return await _run(config, env_spec.id, watched, settings, finished, on_start)
    finally:
        if policy is None:  # we made it, we release it (stops decode threads promptly)
            await the_policy.aclose()
            the_policy.close()


async def _run(
    config: EvalConfig, env_id: str, the_policy: Policy, settings: dict[str, Any],
    progress: ProgressCallback | None, on_start: Callable[[int, int, int], None] | None,
) -> dict[str, Any]:
    task_ids = await asyncio.to_thread(
        select_tasks, env_id, config.split, config.n, config.env_kwargs, config.seed)
    requests = build_requests(task_ids, config.k, config.seed)
    out = Path(config.out) if config.out else None
    store = TrajectoryStore(out / "trajectories", resume=config.resume) if out else None
    if out is not None:
        (out / RUN_FILE).write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    done = store.done_keys() if store is not None else set()
    todo = [r for r in requests if (r.task_id, r.sample_idx) not in done]
    if on_start is not None:  # a resumed run: the stored episodes and their successes count
        wins = store.successes({(r.task_id, r.sample_idx) for r in requests}) if store else 0
        on_start(len(requests), len(requests) - len(todo), wins)
    rollout = RolloutConfig(
        max_turns=settings["max_turns"], max_tokens=config.max_tokens,
        episode_timeout_s=config.episode_timeout_s, policy_timeout_s=config.policy_timeout_s,
        env_timeout_s=config.env_timeout_s, seed=config.seed,
        sampling=SamplingParams(max_tokens=config.max_new_tokens,
                                temperature=settings["temperature"]),
        summary=SummaryConfig(budget=config.summary_budget) if config.summary_budget else None,
    )
    env_kwargs = {"split": config.split, **config.env_kwargs, "max_turns": settings["max_turns"]}
    engine = Engine(env_id, the_policy, config=rollout, num_envs=config.num_envs,
                    env_kwargs=env_kwargs, backend=config.backend)
    fresh: list[Trajectory] = []

    def record(traj: Trajectory) -> None:
        if store is not None:
            store.append(traj)
        fresh.append(traj)
        if progress is not None:
            progress(traj)

    t0 = time.monotonic()
    try:
        await engine.arun(todo, on_result=record)
    finally:
        await engine.aclose()
        if store is not None:
            store.close()
    wall = time.monotonic() - t0
    if store is not None:
        with TrajectoryStore(store.root, resume=True) as reopened:
            trajs = list(reopened)
    else:
        trajs = fresh
    wanted = {(r.task_id, r.sample_idx) for r in requests}
    trajs = [t for t in trajs if (t.task_id, t.sample_idx) in wanted]
    results = eval_results(
        {**asdict(config), "env_id": env_id, "temperature": settings["temperature"],
         "max_turns": settings["max_turns"]},
        the_policy.describe(), trajs, config.k, wall, engine=engine.stats.to_dict())
    if out is not None:
        from .report import write_results

        write_results(out, results, trajs)
    return results


def eval_results(config: dict[str, Any], policy: dict[str, Any], trajs: list[Trajectory],
                 k: int, wall_s: float, **metrics: Any) -> dict[str, Any]:
    """The results of an evaluation as ``results.json`` holds them (every eval path)."""
    from .. import __version__

    summary = summarize(trajs, k)
    summary["wall_s"] = wall_s
    summary.update(metrics)
    return {
        "agentgym_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config,
        "policy": policy,
        "metrics": summary,
        "per_task": per_task(trajs),
        "end_reasons": end_reasons(trajs),
    }


def end_reason(traj: Trajectory) -> str:
    """How an episode ended, in words: ``terminated (success)``, ``terminated (failure)``,
    the truncation's reason (``turn limit 3 reached``, ``token limit 4096``) or ``aborted: ...``."""
    if traj.aborted:
        return f"aborted: {traj.reason}"
    if traj.truncated:
        return traj.reason or "truncated"
    if traj.terminated:
        return "terminated (success)" if traj.success else "terminated (failure)"
    return traj.reason or "unfinished"


def end_reasons(trajs: list[Trajectory]) -> dict[str, int]:
    """Episodes per :func:`end_reason`, most frequent first."""
    counts: dict[str, int] = {}
    for t in trajs:
        counts[end_reason(t)] = counts.get(end_reason(t), 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def run_eval(config: EvalConfig, **kwargs: Any) -> dict[str, Any]:
    """Sync twin of :func:`arun_eval`."""
    return asyncio.run(arun_eval(config, **kwargs))


__all__ = ["EvalConfig", "arun_eval", "build_requests", "check_backend", "check_resume",
           "clear_outputs", "end_reason", "end_reasons", "eval_results", "refuse_existing",
           "run_eval", "run_settings", "sample_ids", "select_tasks"]
