"""Turn a model's turn into primitives, whatever action space it speaks.

Accepted, in this order:

1. ``WAIT``, ``FAIL`` or ``DONE`` alone (OSWorld's special actions);
2. a ``computer`` tool call (arguments: one ``computer_13`` action), as a native OpenAI tool call,
   a :class:`~agentgym.ToolCall` or ``<tool_call>`` text;
3. pyautogui code in a fenced block (```` ```python ````), or bare code calling ``pyautogui.``;
4. JSON (fenced or bare): one action object or a list of them, ``computer_13`` (upper-case
   ``action_type``) or AndroidWorld / UI-S1 (lower-case ``action_type`` or ``action``).

``action_space`` narrows what is accepted (``computer_13``, ``pyautogui``, ``android``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentgym.errors import ToolError
from agentgym.toolcalls import ToolCall, parse_tool_calls

from .actions import ActionError, Primitive, parse_computer13
from .android import parse_android
from .pyautogui_ast import parse_pyautogui

ACTION_SPACES = ("auto", "computer_13", "pyautogui", "android")
MAX_ACTIONS = 20
"""Most JSON actions in one turn."""

_FENCE = re.compile(r"```([a-zA-Z0-9_]*)\s*\n?(.*?)```", re.S)
_SPECIAL = {"WAIT": Primitive("wait", seconds=1.0), "FAIL": Primitive("fail"),
            "DONE": Primitive("done")}


def _json_actions(value: Any, space: str) -> list[Primitive]:
    items = value if isinstance(value, list) else [value]
    if not items or len(items) > MAX_ACTIONS:
        raise ActionError(f"give 1 to {MAX_ACTIONS} actions")
    out: list[Primitive] = []
    for item in items:
        if not isinstance(item, dict):
            raise ActionError("each JSON action must be an object")
        kind = item.get("action_type", item.get("action"))
        upper = isinstance(kind, str) and kind.isupper() and "action_type" in item
        if space == "computer_13" or (space == "auto" and upper):
            out.extend(parse_computer13(item))
        elif space in ("android", "auto"):
            out.extend(parse_android(item))
        else:
            raise ActionError(f"JSON actions are not accepted in the {space} action space")
    return out


def _tool_calls(calls: list[ToolCall], space: str) -> list[Primitive]:
    out: list[Primitive] = []
    for call in calls[:MAX_ACTIONS]:
        if call.name != "computer":
            raise ActionError(f"unknown tool {call.name[:40]!r}; the only tool is 'computer'")
        args = {k: v for k, v in call.arguments.items() if v is not None}
        out.extend(parse_computer13(args) if space != "android" else parse_android(args))
    return out


def _from_text(text: str, space: str) -> list[Primitive]:
    stripped = text.strip()
    if stripped.upper() in _SPECIAL:
        return [_SPECIAL[stripped.upper()]]
    if "<tool_call>" in stripped:
        try:
            return _tool_calls(parse_tool_calls(stripped), space)
        except ToolError as e:
            raise ActionError(str(e)) from e
    fence = _FENCE.search(stripped)
    body, lang = (fence.group(2).strip(), fence.group(1).lower()) if fence else (stripped, "")
    if body.upper() in _SPECIAL:
        return [_SPECIAL[body.upper()]]
    if lang in ("python", "py") or (not lang and "pyautogui." in body and body[:1] not in "[{"):
        if space not in ("auto", "pyautogui"):
            raise ActionError(f"pyautogui code is not accepted in the {space} action space")
        return parse_pyautogui(body)
    if body[:1] in "[{":
        try:
            value = json.loads(body)
        except (ValueError, RecursionError) as e:
            raise ActionError(f"invalid JSON: {e}") from e
        return _json_actions(value, space)
    raise ActionError(
        "no action found: answer with pyautogui code in ```python```, a JSON action, "
        "a computer tool call, or WAIT / FAIL / DONE"
    )


def parse_action(action: Any, space: str = "auto") -> list[Primitive]:
    """Primitives of one model turn; raise :class:`ActionError` when there are none."""
    if space not in ACTION_SPACES:
        raise ActionError(f"unknown action space {space!r}")
    if isinstance(action, ToolCall):
        return _tool_calls([action], space)
    if isinstance(action, list) and action and all(isinstance(a, ToolCall) for a in action):
        return _tool_calls(action, space)
    if isinstance(action, dict):
        if action.get("tool_calls"):
            try:
                return _tool_calls(parse_tool_calls(action), space)
            except ToolError as e:
                raise ActionError(str(e)) from e
        if "action_type" in action or "action" in action:
            return _json_actions(action, space)
        action = action.get("content")
    if not isinstance(action, str):
        raise ActionError(f"cannot read an action from a {type(action).__name__}")
    return _from_text(action, space)


__all__ = ["ACTION_SPACES", "MAX_ACTIONS", "parse_action"]
