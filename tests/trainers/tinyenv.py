"""A two-turn test env whose reward a random tiny model already varies on: the digit share.

Turn 1 shows a prompt; any reply gets "again"; turn 2's reply ends the episode with reward =
share of digit characters over both replies. Registered as ``tinytest/digits-v0``.
"""

from __future__ import annotations

from typing import Any

import agentgym
from agentgym import AgentEnv, InfrastructureError, Task, TaskSet, make_observation


def load_tasks() -> TaskSet:
    """24 train and 8 test prompts."""
    return TaskSet(
        Task(f"t{i}", "test" if i % 4 == 0 else "train", f"Write digits, round {i}.")
        for i in range(32)
    )


class DigitsEnv(AgentEnv):
    """Reward = share of digits in the model's two replies."""

    instructions = "Reply with digits."

    def __init__(self, split: str = "train", broken_tasks: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.broken_tasks = set(broken_tasks)
        """Tasks whose second turn fails as infrastructure (an aborted episode)."""
        self.tasks = load_tasks().split(split)
        self.replies: list[str] = []
        self.task: Task | None = None

    def _reset(self, options: dict[str, Any]):
        self.task = self.tasks.get(options["task_id"]) if "task_id" in options else self.tasks[0]
        self.replies = []
        return make_observation(self.task.prompt), {"task_id": self.task.task_id}

    def _step(self, action: Any):
        self.replies.append(action if isinstance(action, str) else str(action))
        info = {"task_id": self.task.task_id}
        if len(self.replies) < 2:
            return make_observation("again"), 0.0, False, False, info
        if self.task.task_id in self.broken_tasks:
            raise InfrastructureError(f"tool server for {self.task.task_id} is down")
        text = "".join(self.replies)
        reward = sum(c.isdigit() for c in text) / max(len(text), 1)
        info["success"] = reward >= 0.5
        return make_observation("done"), reward, True, False, info


def register() -> None:
    """Register ``tinytest/digits-v0`` (idempotent; ``reset_plugins()`` removes it again)."""
    agentgym.register(
        "tinytest/digits-v0", "tinyenv:DigitsEnv", tasks="tinyenv:load_tasks", max_turns=2,
        family="test", plugin="tinytest",
    )
