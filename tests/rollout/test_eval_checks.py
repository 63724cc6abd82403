"""``agentgym eval`` never reports a false 0%: checks before the first episode, invalid counts,
aborted episodes reported apart, resume only into a matching folder, seeded task samples."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.errors import ConfigError, PolicyError
from agentgym.policies.openai_http import OpenAIPolicy
from agentgym.rollout.evaluate import EvalConfig, run_eval, sample_ids

from .fake_envs import CounterEnv, counter_tasks

runner = CliRunner()


def _app() -> Any:
    from agentgym.cli import app

    return app


class CrashyEnv(CounterEnv):
    """A counter env whose step raises (an infrastructure failure) on the tasks in ``crash``."""

    def __init__(self, split: str = "test", crash: str = "t4") -> None:
        super().__init__(split)
        self.crash = crash.split(",")

    def _step(self, action: Any) -> Any:
        if "all" in self.crash or self.task_id in self.crash:
            raise RuntimeError("simulated container death")
        return super()._step(action)


@pytest.fixture(scope="module")
def crashy_env() -> str:
    agentgym.register("testeval/crashy-v0", CrashyEnv, tasks=counter_tasks)
    return "testeval/crashy-v0"


@pytest.fixture(scope="module")
def short_env() -> str:
    """Counter tasks under a spec turn limit of 2 (task t4 needs 5 turns)."""
    agentgym.register("testeval/short-v0", CounterEnv, tasks=counter_tasks, max_turns=2)
    return "testeval/short-v0"


def test_dead_policy_server_is_one_error_line_and_fast() -> None:
    t0 = time.monotonic()
    result = runner.invoke(_app(), ["eval", "guess-number", "-n", "3",
                                    "--policy", "openai:http://127.0.0.1:9/v1"])
    assert time.monotonic() - t0 < 20
    assert result.exit_code == 1
    assert "cannot reach the policy server at http://127.0.0.1:9/v1" in result.output
    assert "success rate" not in result.output and "retrying" not in result.output


def test_a_url_that_is_not_one_fails_before_any_request() -> None:
    result = runner.invoke(_app(), ["eval", "guess-number", "--policy", "openai:not-a-url"])
    assert result.exit_code == 1 and "not an http(s) URL" in result.output
    with pytest.raises(PolicyError, match="not an http"):
        OpenAIPolicy("ftp://host/v1")


async def test_protocol_errors_are_not_retried_and_bad_keys_fail_the_check() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        raise httpx.UnsupportedProtocol("no such protocol")

    policy = OpenAIPolicy("http://server/v1", model="m", transport=httpx.MockTransport(handler),
                          max_retries=4, backoff_s=0.0)
    with pytest.raises(PolicyError, match="UnsupportedProtocol"):
        await policy._post("/chat/completions", {})
    assert len(calls) == 1  # a protocol error can never succeed: one attempt only
    await policy.aclose()
    denied = OpenAIPolicy("http://server/v1", model="m", transport=httpx.MockTransport(
        lambda r: httpx.Response(401, text="bad key")))
    with pytest.raises(PolicyError, match="refused the request"):
        await denied.acheck()
    await denied.aclose()


def test_ray_backend_without_ray_is_one_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # ``import ray`` raises ImportError
    result = runner.invoke(_app(), ["eval", "guess-number", "-n", "2", "--backend", "ray"])
    assert result.exit_code == 1
    assert "'ray' is not installed" in result.output and "success rate" not in result.output


@pytest.mark.parametrize("args", [["-n", "0"], ["-n", "-3"], ["--k", "0"], ["--num-envs", "0"],
                                  ["--max-turns", "0"]])
def test_invalid_counts_are_rejected(args: list[str]) -> None:
    result = runner.invoke(_app(), ["eval", "guess-number", *args])
    assert result.exit_code == 2 and "success rate" not in result.output


def test_invalid_counts_are_rejected_by_the_library_too() -> None:
    for bad in ({"n": 0}, {"k": 0}, {"n": -3}, {"backend": "threads"}, {"resume": True}):
        with pytest.raises(ConfigError):
            EvalConfig("guess-number", **bad)


def test_aborted_episodes_are_reported_apart_and_fail_the_run(crashy_env: str) -> None:
    result = runner.invoke(_app(), ["eval", crashy_env, "--policy", "fake:done"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    # 10 tasks, t4 aborted: 9 completed, all successes; the rate is over the completed ones
    assert "100.0% (9/9 completed)" in result.output
    assert "1 of 10" in result.output and "--allow-aborted" in result.output
    allowed = runner.invoke(_app(), ["eval", crashy_env, "--policy", "fake:done",
                                     "--allow-aborted"])
    assert allowed.exit_code == 0, allowed.output


def test_every_episode_aborted_fails_even_when_allowed(tmp_path: Path) -> None:
    agentgym.register("testeval/all-crash-v0", CrashyEnv, tasks=counter_tasks,
                      kwargs={"crash": "all"})
    out = tmp_path / "run"
    result = runner.invoke(_app(), ["eval", "testeval/all-crash-v0", "--policy", "fake:done",
                                    "--allow-aborted", "--out", str(out)])
    assert result.exit_code == 1
    assert "every episode aborted" in result.output and "0.0%" not in result.output
    metrics = json.loads((out / "results.json").read_text())["metrics"]
    assert metrics["episodes"] == 0 and metrics["aborted"] == 10


def test_resume_refuses_other_settings_and_extends_matching_ones(
    counter_env: str, tmp_path: Path
) -> None:
    out = str(tmp_path / "run")
    base = ["eval", counter_env, "--policy", "fake:done", "--out", out]
    assert runner.invoke(_app(), [*base, "-n", "4"]).exit_code == 0
    for other in (["--policy", "random"], ["--k", "2"], ["--seed", "1"], ["--max-turns", "3"]):
        result = runner.invoke(_app(), ["eval", counter_env, "--policy", "fake:done",
                                        "--out", out, "-n", "4", "--resume", *other])
        assert result.exit_code == 1 and "cannot resume" in result.output, other
    result = runner.invoke(_app(), [*base, "-n", "6", "--resume"])
    assert result.exit_code == 0, result.output
    assert json.loads(Path(out, "results.json").read_text())["metrics"]["episodes"] == 6
    fresh = runner.invoke(_app(), [*base, "-n", "6"])
    assert fresh.exit_code == 1 and "--overwrite" in fresh.output
    assert runner.invoke(_app(), [*base, "-n", "2", "--overwrite"]).exit_code == 0
    assert json.loads(Path(out, "results.json").read_text())["metrics"]["episodes"] == 2


def test_n_takes_a_seeded_sample_spread_over_the_split() -> None:
    ids = [f"task-{i:03d}" for i in range(100)]
    five, ten = sample_ids(ids, 5, 0), sample_ids(ids, 10, 0)
    assert five != ids[:5] and set(five) <= set(ten)  # spread, and a larger n extends it
    assert five == sample_ids(ids, 5, 0) and five != sample_ids(ids, 5, 1)
    assert ten == sorted(ten)  # kept in split order
    assert int(ten[-1][5:]) - int(ten[0][5:]) > 50
    assert sample_ids(ids, None, 0) == ids and sample_ids(ids, 500, 0) == ids
    result = runner.invoke(_app(), ["eval", "--help"], env={"COLUMNS": "200"})
    assert "sample spread over the split" in result.output


def test_max_turns_raises_or_lowers_the_env_limit(short_env: str) -> None:
    policy = "fake:done"
    at_spec = run_eval(EvalConfig(short_env, policy=policy))
    raised = run_eval(EvalConfig(short_env, policy=policy, max_turns=5))
    lowered = run_eval(EvalConfig(short_env, policy=policy, max_turns=1))
    # tasks last 1..5 turns: the spec's 2 lets 4 of 10 finish, 5 all of them, 1 only two
    assert at_spec["metrics"]["successes"] == 4
    assert raised["metrics"]["successes"] == 10 and raised["config"]["max_turns"] == 5
    assert lowered["metrics"]["successes"] == 2


def test_replay_accepts_an_eval_out_folder(counter_env: str, tmp_path: Path) -> None:
    out = tmp_path / "first"
    assert runner.invoke(_app(), ["eval", counter_env, "--policy", "fake:done",
                                  "--out", str(out)]).exit_code == 0
    result = runner.invoke(_app(), ["eval", counter_env, "--policy", f"replay:{out}"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "100.0% (10/10 completed)" in result.output
