"""``agentgym eval ENV --agent "PROGRAM"``: the held-out split played through the gateway.

Fast: the options' refusals (before any model loads). Slow: a real agent program (the official
``openai`` + ``mcp`` clients) plays shop tasks through the trainer's gateway collector over the
tiny Llama; the reported success is what replaying the stored episodes' model turns scores.
A crashing agent's episodes count as aborted, not failed (fast, the random policy).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.cli import app
from agentgym.rollout.store import TrajectoryStore

runner = CliRunner()
AGENT = Path(__file__).parents[1] / "gateway" / "agents" / "openai_mcp_agent.py"


def _eval(*args: str) -> Any:
    return runner.invoke(app, ["eval", "shop", *args], env={"COLUMNS": "300"})


@pytest.mark.parametrize(("args", "message"), [
    (["--reward", "env"], "--reward only apply with --agent"),
    (["--sandbox", "none", "--pass-env", "HOME"], "--sandbox, --pass-env only apply with"),
    (["--no-mcp"], "--mcp/--no-mcp only apply with --agent"),
    (["--agent", "python a.py", "--k", "2"], "--k > 1 cannot apply"),
    (["--agent", "python a.py", "--temperature", "0.7"], "--temperature (greedy only)"),
    (["--agent", "python a.py", "--resume", "--out", "x"], "--resume cannot apply"),
    (["--agent", "python a.py", "--backend", "ray"], "--backend ray cannot apply"),
    (["--agent", "  "], "--agent: name the agent program"),
    (["--agent", "python a.py", "--reward", "judge"], "expected env, posted or module:function"),
    (["--agent", "python a.py", "--reward", "posted"], "--reward posted needs --scorer"),
    (["--agent", "python a.py", "--scorer", "python s.py"], "--scorer only applies with"),
    (["--agent", "python a.py", "--sandbox", "docker"], "expected auto, bubblewrap or none"),
    (["--agent", "python a.py", "--bind", "/no/such/dir"], "--bind /no/such/dir: no such"),
])
def test_gateway_options_are_checked_before_anything_runs(args: list[str], message: str) -> None:
    result = _eval(*args)
    assert result.exit_code == 1, result.output
    assert message in result.output, result.output


def test_an_existing_output_folder_is_refused_without_overwrite(tmp_path: Path) -> None:
    (tmp_path / "trajectories").mkdir()
    (tmp_path / "trajectories" / "trajectories.jsonl").write_text("{}\n")
    result = _eval("--agent", "python a.py", "--out", str(tmp_path))
    assert result.exit_code == 1 and "already holds an evaluation" in result.output
    assert not (tmp_path / "results.json").exists()  # refused before any episode


def test_crashing_agents_are_counted_aborted_not_failed(tmp_path: Path) -> None:
    """The random (message-level) policy behind the gateway; the agent dies before a call."""
    crash = f"{sys.executable} -c \"import sys; sys.stderr.write('boom'); sys.exit(3)\""
    out = tmp_path / "ev"
    result = _eval("--agent", crash, "--policy", "random", "--no-mcp", "--sandbox", "none",
                   "-n", "2", "--allow-aborted", "--out", str(out))
    assert result.exit_code == 1, result.output  # nothing scored: not a 0% success
    assert "every episode aborted (2), nothing was scored" in result.output
    assert "status 3: boom" in result.output
    assert "2 episodes of shop (test), each played by the agent" in result.output
    m = json.loads((out / "results.json").read_text())["metrics"]
    assert (m["aborted"], m["total_episodes"], m["episodes"], m["successes"]) == (2, 2, 0, 0)


def test_an_unknown_env_is_one_line_not_a_traceback() -> None:
    result = runner.invoke(app, ["eval", "no-such/env-v0", "--agent", "python a.py"])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output


def test_a_policy_that_needs_the_engine_is_refused_before_any_agent_starts(
        tmp_path: Path) -> None:
    marker = tmp_path / "started"
    agent = f"{sys.executable} -c \"open('{marker}', 'w')\""
    result = _eval("--agent", agent, "--sandbox", "none", "-n", "1")  # --policy scripted
    assert result.exit_code == 1, result.output
    assert "the scripted policy plays from the engine's episode context" in result.output
    assert not marker.exists()


def test_without_the_trainers_plugin_the_refusal_names_the_service(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgym import plugins
    from agentgym.errors import NameNotFound

    class NoServices:
        def load(self, name: str) -> Any:
            raise NameNotFound(f"no service named {name!r}; registered: retriever")

    real = plugins.get_registry
    monkeypatch.setattr(plugins, "get_registry",
                        lambda kind: NoServices() if kind == "services" else real(kind))
    result = _eval("--agent", "python a.py", "-n", "1")
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "'gateway-eval' service of agentgym's trainers plugin" in result.output


@pytest.fixture
def tiny_policy(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``--policy`` loads the tiny random Llama (an HF policy: token-exact episodes)."""
    pytest.importorskip("openai")
    pytest.importorskip("mcp")
    from agentgym.cli import eval_gateway
    from agentgym.policies.hf import HFPolicy
    from trainers.tiny import tiny_llama

    made: list[HFPolicy] = []

    def load(spec: str) -> HFPolicy:
        model, tok = tiny_llama()
        made.append(HFPolicy(model, tok, device="cpu", batch_wait_ms=1.0))
        return made[-1]

    monkeypatch.setattr(eval_gateway, "load_policy", load)
    return made


def _replayed(traj: Any) -> tuple[float, bool]:
    """What the stored episode's model turns score in a fresh env on its task."""
    env = agentgym.make("shop/price-v0", split="test", max_turns=2)
    try:
        env.reset(options={"task_id": traj.task_id})
        total, info = 0.0, dict[str, Any]()
        for text in traj.info["gateway"]["texts"]:
            _, reward, terminated, truncated, info = env.step(text)
            total += float(reward)
            if terminated or truncated:
                break
        return total, bool(info.get("success", total > 0))
    finally:
        env.close()


@pytest.mark.slow
def test_an_agent_program_is_evaluated_through_the_gateway(tmp_path: Path,
                                                           tiny_policy: Any) -> None:
    out = tmp_path / "ev"
    result = runner.invoke(app, [
        "eval", "shop/price-v0", "--policy", "hf:tiny", "--agent", f"python {AGENT} 2",
        "--sandbox", "none", "-n", "3", "--max-turns", "2", "--max-new-tokens", "8",
        "--num-envs", "2", "--out", str(out)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "success rate" in result.output and "aborted (not scored)" in result.output
    results = json.loads((out / "results.json").read_text())
    m = results["metrics"]
    assert m["total_episodes"] == 3 and m["aborted"] == 0 and m["episodes"] == 3
    assert results["config"]["rollout_source"] == "gateway" and results["config"]["k"] == 1
    with TrajectoryStore(out / "trajectories") as store:
        trajs = list(store)
    assert len(trajs) == 3 and len({t.task_id for t in trajs}) == 3
    scored = [_replayed(t) for t in trajs]
    for t, (reward, _) in zip(trajs, scored, strict=True):
        assert t.exact_tokens and t.turns >= 1 and t.reward == pytest.approx(reward)
    assert m["successes"] == sum(won for _, won in scored) == sum(t.success for t in trajs)
    assert m["mean_reward"] == pytest.approx(sum(r for r, _ in scored) / 3)
    assert (out / "report.md").is_file() and (out / "viewer" / "index.html").is_file()
    assert len(tiny_policy) == 1  # one policy, loaded once


def _loop_helpers() -> Any:
    """tests/envs/imported/test_verifiers_loop.py (its taskset source and scripted policy)."""
    import importlib.util

    path = Path(__file__).parents[1] / "envs" / "imported" / "test_verifiers_loop.py"
    spec = importlib.util.spec_from_file_location("verifiers_loop_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_verifiers_env_of_its_own_is_evaluated_in_its_own_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The env the importer refuses (its own Env class), evaluated as its refusal says: each
    task played by verifiers' loop through the gateway over the tiny Llama scripted to reply
    "9"; the reported rewards and success are verifiers' own in-loop scores (its records)."""
    import os
    import textwrap

    from agentgym.cli import eval_gateway
    from agentgym.envs.imported import verifiers_client

    if not verifiers_client.available():
        pytest.skip("no .venv-verifiers (make setup-verifiers)")
    loop = _loop_helpers()
    root, records = tmp_path / "envs", tmp_path / "records"
    (root / loop.SOLVER).mkdir(parents=True)
    records.mkdir()
    (root / loop.SOLVER / "__init__.py").write_text(
        textwrap.dedent(loop.ENV) + '\n__all__ = ["SumTaskset", "SolverEnv"]\n')
    with pytest.raises(agentgym.ConfigError) as refused:
        agentgym.make(f"verifiers:{loop.SOLVER}", path=str(root))
    assert f"agentgym eval verifiers:{loop.SOLVER} --env-arg loop=true --agent" in \
        str(refused.value)
    monkeypatch.setattr(eval_gateway, "load_policy", lambda spec: loop._scripted_policy("9"))
    monkeypatch.setenv("UV_CACHE_DIR", os.environ.get("UV_CACHE_DIR")
                       or str(Path.home() / ".cache" / "uv"))
    index = [k for k in ("SSL_CERT_FILE", "SSL_CERT_DIR", "UV_INDEX_URL", "UV_DEFAULT_INDEX",
                         "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy") if k in os.environ]
    agent = (f"{verifiers_client.worker_python()} -P {loop.AGENT} --env-args "
             f"'{json.dumps({'path': str(root)})}' --max-turns 4 --record {records}")
    out = tmp_path / "ev"
    result = runner.invoke(app, [
        "eval", f"verifiers:{loop.SOLVER}", "--policy", "hf:tiny", "--env-arg", "loop=true",
        "--env-arg", f"path={root}", "--env-arg", "test_size=0.5", "--agent", agent,
        "--no-mcp", "--sandbox", "none", "--max-new-tokens", "4", "--out", str(out),
        *(a for k in ["UV_CACHE_DIR", *index] for a in ("--pass-env", k))],
        env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    theirs = {}
    for path in records.glob("*.json"):
        episode = json.loads(path.read_text())
        [trace] = episode["traces"]
        theirs[f"{loop.SOLVER}/{episode['task']['data']['idx']}"] = sum(
            r["score"] * r["weight"] for r in trace["rewards"].values())
    with TrajectoryStore(out / "trajectories") as store:
        ours = {t.task_id: t.reward for t in store}
    assert ours == theirs and len(ours) == results["metrics"]["episodes"] == 2
    assert all(v == float(k == f"{loop.SOLVER}/1") for k, v in ours.items())  # 1 + 8 = 9
    assert results["metrics"]["successes"] == sum(v == 1.0 for v in theirs.values())
    assert results["metrics"]["aborted"] == 0
