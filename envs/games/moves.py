"""Reading a move out of a model turn: a tool call, or the last legal word or number in the text.

Shared by the game envs, so every game accepts the same two forms: the ``move`` tool
(``{"move": "..."}``) or plain text whose *last* token naming a legal move counts (so "I will
play 5" plays 5). Text naming no legal move, or not text at all, is an
:class:`~agentgym.multiagent.IllegalAction` whose message lists the legal moves.
"""

from __future__ import annotations

import re
from typing import Any

from agentgym import Tool, ToolCallParseError, parse_tool_calls
from agentgym.multiagent import IllegalAction

_TOKEN = re.compile(r"[A-Za-z]+|\d+")
MAX_CHARS = 4000
"""Longer turns are refused (a game move is a word)."""


def move_tool(description: str) -> Tool:
    """The ``move`` tool of a game, with ``description`` saying what a move is."""

    def move(move: str) -> str:
        """Play a move.

        Args:
            move: The move to play.
        """
        return move

    return Tool.from_function(move, description=description)


def read_move(action: Any, legal: list[str]) -> str:
    """The legal move ``action`` names (case-insensitive), or :class:`IllegalAction`."""
    hint = f"legal moves: {', '.join(legal)}"
    text = move_text(action)
    if len(text) > MAX_CHARS:
        raise IllegalAction(f"the reply is {len(text)} characters long; "
                            f"reply with one move ({hint})")
    by_lower = {m.lower(): m for m in legal}
    for token in reversed(_TOKEN.findall(text)):
        if token.lower() in by_lower:
            return by_lower[token.lower()]
    raise IllegalAction(f"no legal move found in the reply; {hint}")


def move_text(action: Any) -> str:
    """The text of a move: a ``move`` tool call's argument, plain text or a message's content;
    :class:`IllegalAction` for anything else (the games and the TextArena importer read moves
    with it)."""
    try:
        calls = parse_tool_calls(action)
    except ToolCallParseError as e:
        raise IllegalAction(f"unreadable tool call: {e}") from e
    if calls:
        call = calls[-1]
        if call.name != "move":
            raise IllegalAction(f"unknown tool {call.name!r}; the only tool is 'move'")
        return str(call.arguments.get("move", ""))
    if isinstance(action, str):
        return action
    if isinstance(action, dict):
        return str(action.get("content") or "")
    raise IllegalAction(f"a move is text or a 'move' tool call, not {type(action).__name__}")


__all__ = ["MAX_CHARS", "move_text", "move_tool", "read_move"]
