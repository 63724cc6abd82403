"""Envs whose one tool is ``reply``: a plain text action is the reply (GEM, SkyRL-gym)."""

from __future__ import annotations

from typing import Any

from agentgym import ToolCall, parse_tool_calls
from agentgym.errors import ToolError


class TextReplies:
    """Mixin for a :class:`~agentgym.TaskToolEnv` with a ``reply(text)`` tool: an action with
    tool calls is those calls; text (or a message's ``content``) is one ``reply`` call; anything
    else is the model's error, never a crash."""

    turn: int

    def parse_action(self, action: Any) -> list[ToolCall]:
        """A ``reply`` call, or the reply's text as one."""
        calls = parse_tool_calls(action)
        if calls:
            return calls
        text = action if isinstance(action, str) else (
            action.get("content") if isinstance(action, dict) else None)
        if not isinstance(text, str):
            raise ToolError(f"the action must be text, got {type(action).__name__}")
        return [ToolCall("reply", {"text": text}, id=f"reply_{self.turn}")]
