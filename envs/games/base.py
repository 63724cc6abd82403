"""What the two-player games share: a task set split, the same rules for both seats, the ``move``
tool, and picking the episode's task from the options or the seed."""

from __future__ import annotations

from typing import Any

from agentgym import Task, TaskSet, ToolSet
from agentgym.multiagent import MultiAgentEnv

from .moves import move_tool


class GameEnv(MultiAgentEnv):
    """A game whose seats share the rules (``instructions``) and one ``move`` tool."""

    instructions: str = ""
    """The rules and the reply format, the same for every seat."""
    move_description: str = "Play a move."
    """What the ``move`` tool's argument is."""

    def __init__(self, tasks: TaskSet, split: str) -> None:
        super().__init__()
        self.split = split
        self.task_set = tasks.split(split)
        self.task: Task | None = None
        self._tools = ToolSet([move_tool(self.move_description)])

    def instructions_for(self, agent: str) -> str:
        """The rules and the reply format (the same for every seat)."""
        return self.instructions

    def tools_for(self, agent: str) -> ToolSet:
        """The ``move`` tool."""
        return self._tools

    def select_task(self, options: dict[str, Any]) -> dict[str, Any]:
        """Set :attr:`task` (``options["task_id"]``, else drawn with the seed); return the info
        every seat gets."""
        if "task_id" in options:
            self.task = self.task_set.get(str(options["task_id"]))
        else:
            self.task = self.task_set[int(self.np_random.integers(len(self.task_set)))]
        return {"task_id": self.task.task_id, "split": self.split}


__all__ = ["GameEnv"]
