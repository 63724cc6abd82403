"""verifiers' own loop through agentgym's gateway, for envs the turn-by-turn importer refuses.

A taskset written with verifiers' own classes that ships its own ``Env`` (a one-seat env named
``solver``: the importer refuses it) runs in verifiers' loop (``envs/imported/verifiers_agent.py``
in ``.venv-verifiers``: ``Env.run_episode``, the null chat harness program, the interception
server) with its client pointed at the gateway over a tiny Llama scripted to reply "9"; the
trainer's ``rollout_source: gateway`` collects the episodes token-exactly and scores them by
replaying the model's turns in the trusted worker. Skips without ``.venv-verifiers``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

import agentgym
from agentgym.envs.imported import verifiers_client
from agentgym.errors import ConfigError

pytestmark = pytest.mark.skipif(not verifiers_client.available(), reason="no .venv-verifiers "
                                "(make setup-verifiers: verifiers pins openai<3, mcp==2.0.0)")
ROOT = Path(__file__).parents[3]
CONFIG = ROOT / "configs" / "gateway_verifiers_solver_cpu.yaml"
SOLVER = "agentgym_vf_solver"
HARNESS = "agentgym_vf_harness"
AGENT = ROOT / "envs" / "imported" / "verifiers_agent.py"

ENV = '''
import verifiers.v1 as vf
from verifiers.v1.harnesses.null import NullHarness


class SumData(vf.TaskData):
    answer: str


class SumTask(vf.Task[SumData]):
    @vf.reward(weight=1.0)
    async def correct(self, trace: vf.Trace) -> float:
        return 1.0 if trace.last_reply.strip() == self.data.answer else 0.0


class SumConfig(vf.TasksetConfig):
    num_tasks: int = 4


class SumTaskset(vf.Taskset[SumTask, SumConfig]):
    def load(self):
        for i in range(self.config.num_tasks):
            yield SumTask(SumData(prompt=f"What is {i} + {i + 7}? Reply with the number only.",
                                  answer=str(2 * i + 7)), self.config.task)


class SolverConfig(vf.EnvConfig):
    solver: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"})


class SolverEnv(vf.Env[SolverConfig]):
    """An Env of its own: one seat, named solver."""

    async def run(self, task, agents):
        await agents.solver.run(task)


class ShellConfig(vf.EnvConfig):
    solver: vf.AgentConfig = vf.AgentConfig()


class ShellEnv(vf.Env[ShellConfig]):
    """Its seat runs the default harness, bash, which executes the model's code."""

    async def run(self, task, agents):
        await agents.solver.run(task)


class PoliteHarness(NullHarness):
    """A harness of its own (verifiers' chat program underneath: no code executed)."""


class JudgedEnv(SolverEnv):
    """Rewards from the Env's own finalize(): nothing the trainer could recompute."""

    async def finalize(self, task, episode):
        pass
'''


@pytest.fixture(scope="module")
def envs_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("vf_loop_envs")
    for name, exported in ((SOLVER, '["SumTaskset", "SolverEnv"]'),
                           ("agentgym_vf_judged", '["SumTaskset", "JudgedEnv"]'),
                           ("agentgym_vf_shell", '["SumTaskset", "ShellEnv"]'),
                           (HARNESS, '["SumTaskset", "PoliteHarness"]')):
        (root / name).mkdir()
        (root / name / "__init__.py").write_text(
            textwrap.dedent(ENV) + f"\n__all__ = {exported}\n")
    return str(root)


def test_an_env_of_its_own_is_refused_turn_by_turn_and_named_the_loop_config(
        envs_dir: str) -> None:
    with pytest.raises(ConfigError) as refused:
        agentgym.make(f"verifiers:{SOLVER}", path=envs_dir)
    message = str(refused.value)
    assert "brings its own Env (SolverEnv" in message
    assert f"agentgym train configs/gateway_verifiers_solver_cpu.yaml env=verifiers:{SOLVER}" \
        in message and "loop: true" in message
    assert CONFIG.exists()
    with pytest.raises(ConfigError) as harness:
        agentgym.make(f"verifiers:{HARNESS}", path=envs_dir)
    assert f"ships its own harness ({HARNESS})" in str(harness.value)
    assert "gateway_verifiers_solver_cpu.yaml" in str(harness.value)
    with pytest.raises(ConfigError) as judged:  # its finalize() judges: not even in the loop
        agentgym.make("verifiers:agentgym_vf_judged", path=envs_dir)
    assert "nor in verifiers' own loop" in str(judged.value) and "finalize()" in str(judged.value)
    with pytest.raises(ConfigError, match="cannot be scored from the model's recorded turns"):
        agentgym.make("verifiers:agentgym_vf_judged", path=envs_dir, loop=True)
    # a seat on the bash harness runs the model's code: refused until a harness is pinned
    with pytest.raises(ConfigError, match="runs the bash harness, which executes the model's"):
        agentgym.make("verifiers:agentgym_vf_shell", path=envs_dir, loop=True)
    agentgym.make("verifiers:agentgym_vf_shell", path=envs_dir, loop=True, harness="null").close()
    with pytest.raises(ConfigError, match="needs loop=True"):
        agentgym.make(f"verifiers:{SOLVER}", path=envs_dir, harness="null")


@pytest.mark.parametrize("ident", [SOLVER, HARNESS])
def test_with_loop_the_env_replays_and_scores_the_models_turns(envs_dir: str,
                                                               ident: str) -> None:
    env = agentgym.make(f"verifiers:{ident}", path=envs_dir, loop=True, test_size=0)
    try:
        env.reset(options={"task_id": f"{ident}/1"})
        _, reward, terminated, _, info = env.step("9")
        assert (reward, terminated, info["rewards"]["correct"]["score"]) == (1.0, True, 1.0)
        env.reset(options={"task_id": f"{ident}/2"})
        assert env.step("9")[1] == 0.0
    finally:
        env.close()


def _scripted_policy(reply: str) -> Any:
    """The HF policy over tests/gateway/conftest.py's ScriptedLM (a tiny Llama made to reply)."""
    from agentgym.policies.hf import HFPolicy

    spec = importlib.util.spec_from_file_location(
        "gateway_fixtures", ROOT / "tests" / "gateway" / "conftest.py")
    assert spec is not None and spec.loader is not None
    fixtures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixtures)
    model = fixtures.ScriptedLM([reply])
    return HFPolicy(model, model.tok, device="cpu", batch_wait_ms=1.0)


def _play(cfg: Any, tasks: list[str], gateway: dict[str, Any]) -> dict[str, Any]:
    """One episode of each task through :class:`GatewayRollouts` over the tiny Llama scripted
    to reply "9"; the trajectories by task id, after checking none aborted and one branch
    each, with no history mismatch."""
    from agentgym.trainers.gateway_rollouts import GatewayRollouts

    cfg.gateway = {**cfg.gateway, "timeout_s": 300, **gateway}
    policy = _scripted_policy("9")
    rollouts = GatewayRollouts(cfg, policy, max_turns=4)
    try:
        result = rollouts.groups(tasks, 0)
    finally:
        rollouts.close()
        policy.close()
    trajs = {t.task_id: t for g in result.groups for t in g}
    assert result.aborted == 0, [t.reason for t in trajs.values()]
    assert sorted(trajs) == tasks
    assert result.extra == {"branches": len(tasks), "mismatches": 0}
    for t in trajs.values():
        assert t.exact_tokens and t.turns == 1 and t.info["gateway"]["texts"] == ["9"]
        assert t.token_ids[: len(t.prompt_ids)] == t.prompt_ids
        assert sum(t.loss_mask) == sum(b - a for a, b in t.turn_spans) > 0
    return trajs


@pytest.mark.slow
def test_verifiers_own_loop_through_the_gateway_is_token_exact_and_scored_by_replay(
        envs_dir: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four episodes (one per task) of the env the importer refuses, each played by verifiers'
    own loop (the agent program) through the gateway: one token-exact branch each, no history
    mismatch, and the trainer's reward (the replay) equal to verifiers' own in-loop score of the
    same reply (the episode records the agent wrote), 1 only on 1 + 8 = 9. Two episodes of a
    taskset that ships its own harness. Then, where bubblewrap works, two more in the agent's
    jail as the shipped config runs them."""
    from agentgym.trainers import load_config
    from agentgym.trainers.gateway_settings import sandbox_available

    records = tmp_path / "records"
    records.mkdir()
    # the harness program's dependencies come from the package index through uv, cached once
    monkeypatch.setenv("UV_CACHE_DIR", os.environ.get("UV_CACHE_DIR")
                       or str(Path.home() / ".cache" / "uv"))
    cfg = load_config(CONFIG, [
        "model=agentgym.trainers.tiny:tiny_llama", "group_size=1", "max_new_tokens=4",
        f"output_dir={tmp_path / 'run'}", f"env_kwargs={{loop: true, path: {envs_dir}, "
        "test_size: 0}"])
    agent = [str(verifiers_client.worker_python()), "-P", str(AGENT),
             "--env-args", json.dumps({"path": envs_dir})]
    # the machine's own package-index settings (a CA bundle, a proxy), where it has them
    index = [k for k in ("SSL_CERT_FILE", "SSL_CERT_DIR", "UV_INDEX_URL", "UV_DEFAULT_INDEX",
                         "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy") if k in os.environ]
    tasks = [f"{SOLVER}/{i}" for i in range(4)]
    trajs = _play(cfg, tasks, {"sandbox": "none", "pass_env": ["UV_CACHE_DIR", *index],
                               "agent": [*agent, "--record", str(records)]})
    theirs = {}
    for path in records.glob("*.json"):
        episode = json.loads(path.read_text())
        [trace] = episode["traces"]
        theirs[f"{SOLVER}/{episode['task']['data']['idx']}"] = sum(
            r["score"] * r["weight"] for r in trace["rewards"].values())
    assert {k: t.reward for k, t in trajs.items()} == theirs == {
        f"{SOLVER}/0": 0.0, f"{SOLVER}/1": 1.0, f"{SOLVER}/2": 0.0, f"{SOLVER}/3": 0.0}
    # a taskset with its own harness, the same way
    cfg.env = f"verifiers:{HARNESS}"
    harnessed = _play(cfg, [f"{HARNESS}/1", f"{HARNESS}/2"], {"agent": agent})
    assert {k: t.reward for k, t in harnessed.items()} == {f"{HARNESS}/1": 1.0,
                                                           f"{HARNESS}/2": 0.0}
    cfg.env = f"verifiers:{SOLVER}"
    if sandbox_available():  # the jail: a fresh HOME (uv fetches again), the env folder bound
        jailed = _play(cfg, tasks[1:3], {"sandbox": "bubblewrap", "pass_env": index,
                                         "binds": [envs_dir], "agent": agent})
        assert {k: t.reward for k, t in jailed.items()} == {tasks[1]: 1.0, tasks[2]: 0.0}


def test_the_agent_program_will_not_play_an_env_whose_reward_it_could_not_give(
        envs_dir: str) -> None:
    """Run by hand on the shell env (its seat on bash): no episode, the reason on stderr."""
    run = subprocess.run(
        [str(verifiers_client.worker_python()), "-P", str(AGENT),
         "--env-args", json.dumps({"path": envs_dir})],
        env={"PATH": os.environ["PATH"], "AGENTGYM_TASK_ID": "agentgym_vf_shell/0",
             "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "unused"},
        capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "not played" in run.stderr and "bash harness" in run.stderr
    bad = subprocess.run([str(verifiers_client.worker_python()), "-P", str(AGENT),
                          "--env-args", "[1]"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "JSON object" in bad.stderr
