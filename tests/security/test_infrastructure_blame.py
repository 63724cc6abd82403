"""Attack: infrastructure faults scored as the model's failure. An env made with a backend name
that does not exist must be refused at ``make``; a fault of the runtime inside a tool (no such
backend, a sandbox that cannot start, a closed sandbox, a missing extra) ends the episode
``aborted`` with its reason, while a tool's bad input stays an error observation the model
reads; the soak benchmark names real backends and flags a lane that did no real work."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

import agentgym
from agentgym import Task, TaskSet, TaskToolEnv
from agentgym.errors import (
    ConfigError,
    MissingExtra,
    NameNotFound,
    SandboxClosed,
    SandboxRunError,
    SandboxUnavailable,
    ToolArgumentError,
)
from agentgym.sandbox import RunResult, RunStatus

ROOT = Path(__file__).resolve().parents[2]


def test_an_unknown_sandbox_name_is_refused_at_make() -> None:
    with pytest.raises(NameNotFound, match="bubblewrap"):
        agentgym.make("code/py-functions-v1", sandbox="bwrap")


def test_registered_and_auto_sandbox_names_are_accepted_at_make() -> None:
    for name in ("auto", "bubblewrap", "docker"):
        agentgym.make("code/py-functions-v1", sandbox=name).close()


FAULTS: dict[str, BaseException] = {
    "no-backend": NameNotFound("no sandbox named 'bwrap'; registered: bubblewrap, docker"),
    "unavailable": SandboxUnavailable("bwrap is not installed"),
    "closed": SandboxClosed("the sandbox was closed"),
    "config": ConfigError("AGENTGYM_X is not a number"),
    "extra": MissingExtra("pip install agentgym[code]"),
}
BAD_INPUT: dict[str, BaseException] = {
    "argument": ToolArgumentError("x must be positive"),
    "failed-run": SandboxRunError(RunResult(status=RunStatus.ERROR, exit_code=1)),
}
TASKS = TaskSet([Task(task_id=k, prompt=k, split="train") for k in [*FAULTS, *BAD_INPUT]],
                name="blame")


class FaultyEnv(TaskToolEnv):
    """``run`` raises the error its task names."""

    def __init__(self, split: str = "train") -> None:
        super().__init__(TASKS, split)

    def make_tools(self) -> list[Any]:
        return [self.run]

    def start(self, task: Task) -> str:
        return task.prompt

    def run(self, code: str) -> str:
        """Run code.

        Args:
            code: Anything.
        """
        assert self.task is not None
        raise {**FAULTS, **BAD_INPUT}[self.task.task_id]


CALL = '<tool_call>{"name": "run", "arguments": {"code": "1"}}</tool_call>'


@pytest.mark.parametrize("task_id", list(FAULTS))
def test_a_runtime_fault_in_a_tool_aborts_the_episode_with_its_reason(task_id: str) -> None:
    env = FaultyEnv()
    env.reset(options={"task_id": task_id})
    obs, reward, terminated, truncated, info = env.step(CALL)
    assert info.get("aborted") is True, obs["text"]
    assert type(FAULTS[task_id]).__name__ in info["abort_reason"]
    assert truncated and not terminated and reward == 0.0


@pytest.mark.parametrize("task_id", list(BAD_INPUT))
def test_a_tools_bad_input_stays_an_error_observation(task_id: str) -> None:
    env = FaultyEnv()
    env.reset(options={"task_id": task_id})
    obs, reward, terminated, truncated, info = env.step(CALL)
    assert not info.get("aborted")
    assert not terminated and not truncated
    assert obs["text"].startswith("Error")


def _soak() -> Any:
    spec = importlib.util.spec_from_file_location("soak_bench", ROOT / "benchmarks" / "soak.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak_bench"] = module
    spec.loader.exec_module(module)
    return module


def test_every_soak_lane_names_a_registered_backend_and_makes_its_env() -> None:
    soak = _soak()
    sandboxes = agentgym.get_registry("sandboxes")
    for lanes in soak.FAMILIES.values():
        for env_id, kwargs in lanes:
            if "sandbox" in kwargs:
                assert kwargs["sandbox"] in sandboxes, kwargs
                agentgym.make(env_id, **kwargs).close()


def test_the_soak_flags_lanes_that_did_no_real_work() -> None:
    soak = _soak()
    lane = soak.Lane

    def made(policy: str, episodes: int, aborted: int, rewarded: int, **kw: Any) -> Any:
        out = lane("code", "code/py-functions-v1", policy, {"sandbox": "bubblewrap"})
        out.episodes, out.aborted, out.rewarded = episodes, aborted, rewarded
        for k, v in kw.items():
            setattr(out, k, v)
        return out

    healthy = [made("scripted", 10, 0, 9), made("random", 10, 1, 0)]
    assert soak.idle_lanes(healthy) == []
    never_ran = made("random", 0, 0, 0)
    all_aborted = made("random", 8, 8, 0)
    expert_never_paid = made("scripted", 8, 0, 0)  # every tool call an error: no real runs
    flagged = soak.idle_lanes([*healthy, never_ran, all_aborted, expert_never_paid])
    assert [name for name, _ in flagged] == [never_ran.name, all_aborted.name,
                                              expert_never_paid.name]
    dropped = made("scripted", 1, 1, 0, dropped="no expert: none")
    assert soak.idle_lanes([dropped]) == []
