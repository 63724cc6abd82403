"""The infrastructure rule: an InfrastructureError aborts the episode, never scores it."""

from __future__ import annotations

from typing import Any

import pytest

import agentgym
from agentgym import InfrastructureError, Task, TaskSet, TaskToolEnv, ToolCall
from agentgym.errors import AgentGymError, is_infrastructure_error
from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, EpisodeRequest

TASKS = TaskSet(
    [Task(task_id=f"t{i}", prompt=f"task {i}", split="train") for i in range(4)], name="infra"
)
CALLS: dict[str, int] = {}


class FlakyEnv(TaskToolEnv):
    """``lookup`` fails as the task id says: t1 always (not retryable), t2 once (retryable)."""

    def __init__(self, split: str = "train") -> None:
        super().__init__(TASKS, split)

    def make_tools(self) -> list[Any]:
        return [self.lookup]

    def start(self, task: Task) -> str:
        if task.task_id == "t3":
            raise InfrastructureError("the database server is gone")
        return task.prompt

    def lookup(self, key: str) -> str:
        """Look a key up and end the episode.

        Args:
            key: Anything.
        """
        task_id = self.task.task_id if self.task else ""
        CALLS[task_id] = CALLS.get(task_id, 0) + 1
        if task_id == "t1":
            raise InfrastructureError("connection reset by peer")
        if task_id == "t2" and CALLS[task_id] == 1:
            raise InfrastructureError("container died", retryable=True)
        self.finish(1.0, success=True)
        return "found"


@pytest.fixture(scope="module")
def flaky_env() -> str:
    agentgym.register("testinfra/flaky-v0", FlakyEnv, tasks=lambda: TASKS)
    return "testinfra/flaky-v0"


CALL = '<tool_call>{"name": "lookup", "arguments": {"key": "x"}}</tool_call>'


def test_error_family() -> None:
    error = InfrastructureError("gone", retryable=True)
    assert isinstance(error, AgentGymError) and error.retryable
    assert not InfrastructureError("gone").retryable
    wrapped = RuntimeError("outer")
    wrapped.__cause__ = error
    assert is_infrastructure_error(wrapped) and not is_infrastructure_error(RuntimeError("x"))


def test_taskenv_aborts_instead_of_scoring(flaky_env: str) -> None:
    CALLS.clear()
    env = agentgym.make(flaky_env)
    env.reset(options={"task_id": "t1"})
    obs, reward, terminated, truncated, info = env.step([ToolCall("lookup", {"key": "x"})])
    assert reward == 0.0 and not terminated and truncated
    assert info["aborted"] is True and "connection reset" in info["abort_reason"]
    assert "infrastructure failure" in obs["text"]
    assert CALLS["t1"] == 1  # not retryable: tried once
    # a retryable failure is repeated once and the episode goes on as if nothing happened
    env.reset(options={"task_id": "t2"})
    obs, reward, terminated, truncated, info = env.step([ToolCall("lookup", {"key": "x"})])
    assert (reward, terminated, truncated) == (1.0, True, False) and "aborted" not in info
    assert CALLS["t2"] == 2
    env.close()


def test_engine_records_aborted_with_reason(flaky_env: str) -> None:
    CALLS.clear()
    engine = Engine(flaky_env, FakePolicy((CALL,)), num_envs=2)
    trajs = {t.task_id: t for t in engine.run([EpisodeRequest(task_id=f"t{i}") for i in range(4)])}
    engine.close()
    assert trajs["t0"].terminated and trajs["t0"].reward == 1.0 and not trajs["t0"].aborted
    assert trajs["t2"].terminated and trajs["t2"].reward == 1.0 and not trajs["t2"].aborted
    for task_id, words in (("t1", "connection reset"), ("t3", "database server is gone")):
        t = trajs[task_id]
        assert t.aborted and not t.terminated and not t.truncated, t
        assert t.reason.startswith("infrastructure:") and words in t.reason
    assert engine.stats.aborted == 2


def test_register_plugin_raises_plugin_error() -> None:
    from agentgym import PluginError, hookimpl

    class Bad:
        @hookimpl
        def agentgym_register_envs(self, register, unknown_argument):  # type: ignore[no-untyped-def]
            pass

    with pytest.raises(PluginError, match="cannot register plugin"):
        agentgym.register_plugin(Bad(), name="bad-signature")
