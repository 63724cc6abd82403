"""One :class:`ToolCall` type, parsed from the formats models actually emit.

Accepted formats (several calls per turn allowed in each):

- OpenAI: an assistant message ``{"content": ..., "tool_calls": [{"id", "type": "function",
  "function": {"name", "arguments": "<json>"}}]}``, or the ``tool_calls`` list alone.
- Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` in the text.
- ReAct: ``Action: name`` followed by ``Action Input: {json}``, or ``Action: name[{json}]``.

:func:`parse_tool_calls` returns ``[]`` when the text holds no tool-call syntax at all and raises
:class:`agentgym.errors.ToolCallParseError` (with a message meant for the model) when it holds
malformed calls. It raises nothing else on model output: JSON nested past
:data:`MAX_ARGUMENT_DEPTH` (a model can emit ``[[[[...`` far past Python's recursion limit) is a
malformed call too, found by an iterative walk before anything recurses over it.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from .errors import ToolCallParseError

_HERMES = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_REACT_ACTION = re.compile(
    r"^\s*Action\s*:\s*(?P<name>[A-Za-z_][\w-]*)\s*(?P<inline>[\[(].*)?$", re.MULTILINE
)
_REACT_INPUT = re.compile(r"^\s*Action Input\s*:\s*(?P<input>.*)", re.MULTILINE | re.DOTALL)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
MAX_ARGUMENT_DEPTH = 64
"""Deepest nesting of arrays and objects a call (its arguments included) may have."""


@dataclass
class ToolCall:
    """A request from the model to call tool ``name`` with ``arguments``."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:12]}")

    def to_openai(self) -> dict[str, Any]:
        """This call as an OpenAI ``tool_calls`` entry."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }

    def to_hermes(self) -> str:
        """This call as Hermes/Qwen ``<tool_call>`` text."""
        body = json.dumps({"name": self.name, "arguments": self.arguments})
        return f"<tool_call>\n{body}\n</tool_call>"


@dataclass
class ToolResult:
    """The outcome of one tool call, rendered for the model as ``content``."""

    call_id: str
    name: str
    content: str
    is_error: bool = False

    def to_openai(self) -> dict[str, Any]:
        """This result as an OpenAI ``role: tool`` message."""
        return {"role": "tool", "tool_call_id": self.call_id, "content": self.content}


def _too_deep(value: Any, limit: int = MAX_ARGUMENT_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON, or JSON text) nests arrays/objects past ``limit``; an
    iterative walk, so no depth makes it recurse."""
    if isinstance(value, str):
        if value.count("[") + value.count("{") <= limit:  # the common case, at C speed
            return False
        depth = 0
        for ch in _BRACKETS.findall(_JSON_STRING.sub("", value)):  # brackets outside strings
            if ch in "[{":
                depth += 1
                if depth > limit:
                    return True
            else:
                depth -= 1
        return False
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _json_loads(text: str, what: str) -> Any:
    if _too_deep(text):
        raise ToolCallParseError(f"{what} nests deeper than {MAX_ARGUMENT_DEPTH} levels")
    try:
        return json.loads(text)
    except RecursionError as e:  # unreachable after the depth walk; kept as a backstop
        raise ToolCallParseError(f"{what} nests too deeply") from e


def _loads_object(raw: Any, what: str) -> dict[str, Any]:
    value = raw
    for _ in range(2):  # some models double-encode arguments
        if isinstance(value, str):
            text = value.strip()
            if not text:
                return {}
            try:
                value = _json_loads(text, what)
            except json.JSONDecodeError as e:
                raise ToolCallParseError(f"{what} is not valid JSON ({e.msg} at {e.pos})") from e
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ToolCallParseError(f"{what} must be a JSON object, got {type(value).__name__}")
    if not isinstance(raw, str) and _too_deep(value):  # text was checked before parsing
        raise ToolCallParseError(f"{what} nests deeper than {MAX_ARGUMENT_DEPTH} levels")
    return value


def _call_from_obj(obj: Any, where: str) -> ToolCall:
    if not isinstance(obj, dict):
        raise ToolCallParseError(f"{where}: expected an object with 'name' and 'arguments'")
    fn = obj.get("function", obj)
    if not isinstance(fn, dict):
        raise ToolCallParseError(f"{where}: 'function' must be an object")
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise ToolCallParseError(f"{where}: missing tool 'name'")
    raw_args = fn.get("arguments", fn.get("parameters", {}))
    args = _loads_object(raw_args, f"{where}: arguments of {name!r}")
    call_id = obj.get("id")
    return ToolCall(name, args, call_id) if isinstance(call_id, str) and call_id else ToolCall(
        name, args
    )


def _parse_openai(value: Any) -> list[ToolCall]:
    calls = value.get("tool_calls") if isinstance(value, dict) else value
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise ToolCallParseError("'tool_calls' must be a list")
    return [_call_from_obj(c, f"tool call {i}") for i, c in enumerate(calls)]


def _parse_hermes(text: str) -> list[ToolCall]:
    calls = []
    for i, m in enumerate(_HERMES.finditer(text)):
        body = m.group(1).strip()
        calls.append(_call_from_obj(_loads_object(body, f"<tool_call> {i}"), f"<tool_call> {i}"))
    return calls


def _parse_react(text: str) -> list[ToolCall]:
    calls = []
    actions = list(_REACT_ACTION.finditer(text))
    for i, m in enumerate(actions):
        name = m.group("name")
        inline = m.group("inline")
        if inline:
            closing = {"[": "]", "(": ")"}[inline[0]]
            body = inline[1:].rstrip()
            if not body.endswith(closing):
                raise ToolCallParseError(f"Action {name!r}: unbalanced {inline[0]!r}")
            calls.append(ToolCall(name, _loads_object(body[:-1], f"Action {name!r} input")))
            continue
        end = actions[i + 1].start() if i + 1 < len(actions) else len(text)
        segment = text[m.end() : end]
        inp = _REACT_INPUT.search(segment)
        raw = inp.group("input").strip() if inp else ""
        raw = raw.split("\nObservation", 1)[0].strip()
        calls.append(ToolCall(name, _loads_object(raw, f"Action Input of {name!r}")))
    return calls


def parse_tool_calls(action: Any) -> list[ToolCall]:
    """Parse a model turn (text, OpenAI message dict, list of calls) into tool calls.

    Raises :class:`ToolCallParseError` for malformed calls, and no other error on model output.
    """
    try:
        calls = _parse(action)
    except ToolCallParseError:
        raise
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError) as e:
        raise ToolCallParseError(f"unreadable tool call ({type(e).__name__})") from e
    for call in [] if isinstance(action, str) else calls:  # text was checked before parsing
        if _too_deep(call.arguments):
            raise ToolCallParseError(
                f"arguments of {call.name!r} nest deeper than {MAX_ARGUMENT_DEPTH} levels")
    return calls


def _parse(action: Any) -> list[ToolCall]:
    if isinstance(action, ToolCall):
        return [action]
    if isinstance(action, list) and all(isinstance(a, ToolCall) for a in action):
        return list(action)
    if isinstance(action, dict):
        calls = _parse_openai(action)
        content = action.get("content")
        if not calls and isinstance(content, str):
            return _parse(content)
        return calls
    if isinstance(action, list):
        return _parse_openai(action)
    if not isinstance(action, str):
        raise ToolCallParseError(
            f"an action must be text or tool calls, got {type(action).__name__}"
        )
    if "<tool_call>" in action:
        return _parse_hermes(action)
    if _REACT_ACTION.search(action):
        return _parse_react(action)
    stripped = action.strip()
    if stripped.startswith("{") and '"name"' in stripped:
        try:
            obj = _json_loads(stripped, "tool call")
        except json.JSONDecodeError:
            return []
        return [_call_from_obj(obj, "tool call")]
    return []


def action_text(action: Any) -> str:
    """The free text of an action (the message content), for envs that read plain text."""
    if isinstance(action, str):
        return action
    if isinstance(action, dict) and isinstance(action.get("content"), str):
        return action["content"]
    return ""
