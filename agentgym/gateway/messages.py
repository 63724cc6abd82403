"""OpenAI chat messages as the gateway compares and renders them.

An agent sends its whole chat history with every call. To reuse the exact ids of the turns the
gateway generated, it must recognise them: :func:`same_reply` compares an assistant message sent
back by the agent with the reply the gateway returned (tool calls by id, name and parsed
arguments; text up to surrounding whitespace, and text may be dropped when the turn called
tools, as several frameworks do). :func:`same_message` compares the other messages exactly.

:func:`split_reply` turns a generated text into an OpenAI reply (Hermes ``<tool_call>`` blocks
become ``tool_calls``); :func:`tools_prompt` describes tools to a model whose chat template
ignores them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import ToolCallParseError
from ..toolcalls import ToolCall, parse_tool_calls


def text_of(content: Any) -> str:
    """The text of a message's ``content`` (a string, a list of text parts, or None)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def _arguments(value: Any) -> Any:
    """Tool-call arguments parsed from their JSON string (the raw value when not JSON)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _calls_key(calls: Any) -> list[tuple[str, str, str]]:
    """``(id, name, canonical arguments)`` of each OpenAI tool call."""
    out = []
    for call in calls or []:
        if not isinstance(call, dict):
            return [("?", "?", repr(call))]
        fn = call.get("function") or {}
        args = _arguments(fn.get("arguments"))
        out.append((str(call.get("id", "")), str(fn.get("name", "")),
                    json.dumps(args, sort_keys=True, default=str)))
    return out


@dataclass
class Reply:
    """An assistant turn the gateway generated: what the agent got and the model's own text."""

    content: str | None
    """The reply's ``content`` (text outside the tool-call blocks; None when empty)."""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """OpenAI ``tool_calls`` parsed from the text."""
    text: str = ""
    """The generated text itself (tool-call blocks included), as the model wrote it."""
    own: bool = True
    """False for an assistant message the agent wrote itself (kept only to match history)."""

    @classmethod
    def foreign(cls, message: dict[str, Any]) -> Reply:
        """An assistant message the gateway did not generate, as the agent sent it."""
        content = text_of(message.get("content"))
        calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        return cls(content or None, calls, render_text(message), own=False)

    def message(self) -> dict[str, Any]:
        """The reply as an OpenAI assistant message."""
        out: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = self.tool_calls
        return out


def same_reply(given: dict[str, Any], reply: Reply) -> bool:
    """Whether the assistant message ``given`` is ``reply`` sent back unedited."""
    if given.get("role") != "assistant":
        return False
    if _calls_key(given.get("tool_calls")) != _calls_key(reply.tool_calls):
        return False
    text = text_of(given.get("content")).strip()
    if not text and reply.tool_calls:  # frameworks drop the text of a tool-calling turn
        return True
    return text == (reply.content or "").strip()


def message_key(message: dict[str, Any]) -> tuple[Any, ...]:
    """What must stay equal for a non-assistant message to count as the same one."""
    return (message.get("role"), text_of(message.get("content")),
            message.get("tool_call_id"), message.get("name"))


def same_message(given: dict[str, Any], recorded: dict[str, Any]) -> bool:
    """Whether two non-assistant messages are the same (role, text, tool-call id, name)."""
    return message_key(given) == message_key(recorded)


_COMPACT = re.compile(r"^\s*([A-Za-z_]\w*)\((.*)\)\s*$")


def _compact_call(text: str, tools: list[dict[str, Any]]) -> ToolCall | None:
    """``name(argument)`` on the first non-empty line, for a tool of the request, else None.

    The argument is a JSON object of arguments, or one value for the tool's first parameter.
    """
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    m = _COMPACT.match(line)
    specs = {str(t.get("function", t).get("name")): t.get("function", t) for t in tools
             if isinstance(t, dict)}
    if m is None or m.group(1) not in specs:
        return None
    raw = m.group(2).strip()
    args = _arguments(raw)
    if isinstance(args, dict):
        return ToolCall(m.group(1), args)
    params = list((specs[m.group(1)].get("parameters") or {}).get("properties") or {})
    return ToolCall(m.group(1), {params[0] if params else "value": raw.strip("\"'")})


def split_reply(text: str, tools: list[dict[str, Any]] | None) -> Reply:
    """The OpenAI reply for a generated ``text``: its tool calls become ``tool_calls``.

    Hermes ``<tool_call>`` blocks (any text before them is the content), else a compact
    ``name(argument)`` first line naming one of ``tools``. Without tools in the request, or when
    nothing parses, the whole text is content.
    """
    if not tools:
        return Reply(text, [], text)
    if "<tool_call>" in text:
        try:
            calls = parse_tool_calls(text)
        except ToolCallParseError:
            calls = []
        if calls:
            content = text[: text.find("<tool_call>")].strip() or None
            return Reply(content, [c.to_openai() for c in calls], text)
    call = _compact_call(text, tools)
    if call is not None:
        return Reply(None, [call.to_openai()], text)
    return Reply(text, [], text)


def render_text(message: dict[str, Any]) -> str:
    """Text a message stands for in a re-tokenised prompt (tool calls as Hermes blocks)."""
    text = text_of(message.get("content"))
    blocks = []
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {} if isinstance(call, dict) else {}
        body = json.dumps({"name": fn.get("name", ""), "arguments": _arguments(
            fn.get("arguments") or {})}, default=str)
        blocks.append(f"<tool_call>\n{body}\n</tool_call>")
    return "\n".join([t for t in [text, *blocks] if t])


def tools_prompt(tools: list[dict[str, Any]]) -> str:
    """A system-prompt paragraph describing ``tools`` and the Hermes call format."""
    specs = [t.get("function", t) for t in tools if isinstance(t, dict)]
    lines = [json.dumps(s, sort_keys=True, default=str) for s in specs]
    return ("You may call these tools, one per turn, as "
            '<tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>:\n' + "\n".join(lines))


def tools_key(tools: list[dict[str, Any]] | None) -> str:
    """A canonical string of a request's tools (a changed tool list is a new prompt)."""
    return json.dumps(tools or [], sort_keys=True, default=str)


__all__ = [
    "Reply",
    "message_key",
    "render_text",
    "same_message",
    "same_reply",
    "split_reply",
    "text_of",
    "tools_key",
    "tools_prompt",
]
