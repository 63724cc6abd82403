"""Evaluation runs: outputs, resume, and the ``agentgym eval`` command."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentgym.cli import app
from agentgym.policies import FakePolicy
from agentgym.rollout import TrajectoryStore
from agentgym.rollout.evaluate import EvalConfig, run_eval, sample_ids


def test_eval_writes_results_report_and_plot(counter_env: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    results = run_eval(EvalConfig(counter_env, out=str(out), k=2, num_envs=4),
                       policy=FakePolicy(("done",)))
    m = results["metrics"]
    assert m["episodes"] == 20 and m["success_rate"] == 1.0 and m["pass_at_k"]["pass@2"] == 1.0
    assert results["config"]["split"] == "test" and results["config"]["temperature"] == 1.0
    saved = json.loads((out / "results.json").read_text())
    assert saved["metrics"]["successes"] == 20 and len(saved["per_task"]) == 10
    report = (out / "report.md").read_text()
    assert "| success rate | 100.0% (20/20 completed) |" in report
    assert "![results](report.png)" in report
    assert (out / "report.png").read_bytes()[:4] == b"\x89PNG"


def test_eval_resume_skips_stored_episodes(counter_env: str, tmp_path: Path) -> None:
    out = str(tmp_path / "run")
    first = FakePolicy(("done",))
    run_eval(EvalConfig(counter_env, out=out, n=4), policy=first)
    assert len({c["messages"][1]["content"] for c in first.calls}) == 4
    second = FakePolicy(("done",))
    results = run_eval(EvalConfig(counter_env, out=out, n=6, resume=True), policy=second)
    ids = [f"t{i}" for i in range(10)]
    added = set(sample_ids(ids, 6, 0)) - set(sample_ids(ids, 4, 0))
    assert {c["messages"][1]["content"] for c in second.calls} == {f"task {t}" for t in added}
    assert len(added) == 2
    assert results["metrics"]["episodes"] == 6
    with TrajectoryStore(Path(out) / "trajectories") as store:
        assert len(store) == 6


def test_eval_uses_the_variant_tasks_not_the_family_loader(tmp_path: Path) -> None:
    import agentgym

    from .fake_envs import EvenCounterEnv, counter_tasks

    agentgym.register("testroll/even-v0", EvenCounterEnv, tasks=counter_tasks)
    results = run_eval(EvalConfig("testroll/even-v0"), policy=FakePolicy(("done",)))
    assert results["metrics"]["episodes"] == 5 and results["metrics"]["aborted"] == 0
    assert [r["task_id"] for r in results["per_task"]] == ["t0", "t2", "t4", "t6", "t8"]


def test_cli_eval_scripted_and_random(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "scripted"
    result = runner.invoke(app, ["eval", "textgames/guess-number-v0", "--policy", "scripted",
                                 "-n", "5", "--out", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "100.0% (5/5 completed)" in result.output
    assert json.loads((out / "results.json").read_text())["metrics"]["success_rate"] == 1.0
    result = runner.invoke(app, ["eval", "guess-number", "--policy", "random", "-n", "5"])
    assert result.exit_code == 0, result.output
    assert "success rate" in result.output


def test_cli_eval_errors_are_one_line() -> None:
    result = CliRunner().invoke(app, ["eval", "guess-number", "--policy", "nosuch:x"])
    assert result.exit_code == 1
    assert "no policy named 'nosuch'" in result.output
    result = CliRunner().invoke(app, ["eval", "guess-number", "--resume"])
    assert result.exit_code == 1 and "--resume needs --out" in result.output
