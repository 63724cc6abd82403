"""A sandbox failure is the infrastructure's, not the model's: retried once, then aborted."""

from __future__ import annotations

import agentgym
from agentgym import ToolCall
from agentgym.sandbox import RunResult, RunStatus
from agentgym.sandboxes import FakeSandbox

LOST = RunResult(status=RunStatus.SANDBOX_ERROR, error="404 Client Error: No such container")


def _env_with(sandbox: FakeSandbox):  # type: ignore[no-untyped-def]
    env = agentgym.make("code", split="test", sandbox="bubblewrap")
    env.unwrapped._sandbox = sandbox
    return env


def test_sandbox_error_on_submit_aborts_instead_of_scoring_zero() -> None:
    sandbox = FakeSandbox([LOST, LOST])
    env = _env_with(sandbox)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step([ToolCall("submit", {"code": "x = 1"})])
    assert info["aborted"] is True and "No such container" in info["abort_reason"]
    assert reward == 0.0 and truncated and not terminated and "success" not in info
    assert len(sandbox.calls) == 2  # retried once on a fresh container, then given up
    env.close()


def test_one_sandbox_error_is_retried_transparently() -> None:
    env = agentgym.make("code", split="test", sandbox="bubblewrap")
    task = env.unwrapped.task_set[0]
    real = env.unwrapped.sandbox
    calls = []

    def flaky(call):  # type: ignore[no-untyped-def]
        calls.append(call)
        if len(calls) == 1:
            return LOST
        return real.run(call.command, files=call.files, limits=call.limits)

    env.unwrapped._sandbox = FakeSandbox(flaky)
    env.reset(options={"task_id": task.task_id})
    code = task.data["canonical_solution"]
    _, reward, terminated, _, info = env.step([ToolCall("submit", {"code": code})])
    assert terminated and reward == 1.0 and info["success"] and "aborted" not in info
    assert len(calls) == 2
    real.close()
    env.close()


def test_run_python_sandbox_error_aborts() -> None:
    env = _env_with(FakeSandbox([LOST, LOST]))
    env.reset(seed=0)
    _, _, _, truncated, info = env.step([ToolCall("run_python", {"code": "print(1)"})])
    assert truncated and info["aborted"]
    env.close()


def test_lone_surrogate_in_code_or_stdin_is_a_clear_result_not_an_exception() -> None:
    sandbox = FakeSandbox()
    for kwargs in ({"code": "print('\ud800')"}, {"code": "print(1)", "stdin": "\udcff"}):
        code = kwargs.pop("code")
        result = sandbox.run_python(code, **kwargs)
        assert result.status is RunStatus.ERROR and "not valid UTF-8" in result.summary()
    assert not sandbox.calls  # refused before reaching the backend
    env = _env_with(FakeSandbox())
    env.reset(seed=0)
    obs, _, terminated, truncated, info = env.step(
        [ToolCall("run_python", {"code": "print('\ud800')"})]
    )
    assert "not valid UTF-8" in obs["text"] and not (terminated or truncated)
    env.close()
