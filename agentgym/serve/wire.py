"""The JSON shapes that travel between a served env and its clients.

One codec serves the OpenEnv-compatible HTTP/WebSocket server, the MCP server and
:class:`~agentgym.serve.RemoteEnv`, so the three agree on every field.

Action (OpenEnv ``StepRequest.action`` / WebSocket ``step`` data): an assistant message without its
role, ``{"content": "...", "tool_calls": [...]}``. ``tool_calls`` uses the OpenAI shape or
``{"name", "arguments"}``; without it the content is the action (text envs, Hermes or ReAct
calls written in the text).

Step result (OpenEnv ``StepResponse``)::

    {"observation": {"text": "...", "images": ["<base64 PNG>", ...]},
     "reward": 0.0, "done": false,
     "metadata": {"terminated": false, "truncated": false, "info": {...}, "session_id": "..."}}

``done`` is ``terminated or truncated`` (OpenEnv has one flag); the two gymnasium flags ride in
``metadata``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from typing import Any

import pydantic

from ..env import Observation, StepResult, make_observation
from ..errors import InvalidAction


def jsonable(value: Any) -> Any:
    """A JSON-safe copy of ``value``: dataclasses as dicts, bytes dropped, unknowns as repr."""
    from ..rollout.trajectory import jsonable as _jsonable

    return _jsonable(value)


class WireAction(pydantic.BaseModel):
    """An action on the wire: an assistant message without its role."""

    model_config = pydantic.ConfigDict(extra="forbid")

    content: str = ""
    """The model's text (the whole action for text envs)."""
    tool_calls: list[dict[str, Any]] | None = None
    """Tool calls, OpenAI shape or ``{"name", "arguments"}``; None when the text is the action."""
    metadata: dict[str, Any] = pydantic.Field(default_factory=dict)
    """Free metadata (OpenEnv's ``Action.metadata``); ignored by the env."""


class WireReset(pydantic.BaseModel):
    """Reset parameters: OpenEnv's ``ResetRequest`` plus agentgym's task selection."""

    model_config = pydantic.ConfigDict(extra="forbid")

    seed: int | None = pydantic.Field(default=None, ge=0)
    """Seed of the episode (picks the task when no ``task_id`` is given)."""
    episode_id: str | None = pydantic.Field(default=None, max_length=255)
    """Caller's name for the episode, echoed in the state."""
    task_id: str | None = None
    """The task to play (``options["task_id"]``)."""
    options: dict[str, Any] = pydantic.Field(default_factory=dict)
    """Further reset options for the env."""
    session_id: str | None = None
    """HTTP only: reset this session instead of opening a new one."""
    split: str | None = None
    """HTTP only, new sessions: the task split of the session's env (default: the server's)."""
    max_turns: int | None = pydantic.Field(default=None, ge=1, le=10_000)
    """HTTP only, new sessions: the session's turn limit (default: the server's)."""

    def env_options(self) -> dict[str, Any]:
        """The ``options`` passed to ``env.reset``."""
        options = dict(self.options)
        if self.task_id is not None:
            options["task_id"] = self.task_id
        return options


def action_from_wire(data: Any) -> Any:
    """Validate a wire action and turn it into an agentgym action; :class:`InvalidAction` if bad."""
    if isinstance(data, str):
        return data
    try:
        action = WireAction.model_validate(data)
    except pydantic.ValidationError as e:
        raise InvalidAction(f"invalid action: {_errors(e)}") from e
    if action.tool_calls is None:
        return action.content
    return {"role": "assistant", "content": action.content, "tool_calls": action.tool_calls}


def action_to_wire(action: Any) -> dict[str, Any]:
    """An agentgym action (text, message dict, tool calls) as a wire action."""
    from ..toolcalls import ToolCall

    if isinstance(action, str):
        return {"content": action}
    if isinstance(action, ToolCall):
        action = [action]
    if isinstance(action, list):
        calls = [c.to_openai() if isinstance(c, ToolCall) else c for c in action]
        return {"content": "", "tool_calls": calls}
    if isinstance(action, dict):
        raw_calls = action.get("tool_calls")
        out: dict[str, Any] = {"content": action.get("content") or ""}
        if raw_calls is not None:
            out["tool_calls"] = [
                c.to_openai() if isinstance(c, ToolCall) else c for c in raw_calls
            ]
        return out
    raise InvalidAction(f"an action must be text or tool calls, got {type(action).__name__}")


def observation_to_wire(obs: Observation) -> dict[str, Any]:
    """An observation dict with its PNG images base64-encoded."""
    images = [base64.b64encode(bytes(im)).decode("ascii") for im in obs.get("images", ())]
    return {"text": str(obs.get("text", "")), "images": images}


def observation_from_wire(data: dict[str, Any]) -> Observation:
    """The inverse of :func:`observation_to_wire`."""
    try:
        images = tuple(base64.b64decode(im, validate=True) for im in data.get("images", []))
    except (binascii.Error, TypeError) as e:
        raise ValueError(f"bad image in observation: {e}") from e
    return make_observation(str(data.get("text", "")), images)


def step_to_wire(result: StepResult, **metadata: Any) -> dict[str, Any]:
    """A step result as OpenEnv's ``StepResponse`` body."""
    obs, reward, terminated, truncated, info = result
    return {
        "observation": observation_to_wire(obs),
        "reward": float(reward),
        "done": bool(terminated or truncated),
        "metadata": {
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "info": jsonable(info),
            **metadata,
        },
    }


def reset_to_wire(obs: Observation, info: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    """A reset result as OpenEnv's ``ResetResponse`` body."""
    return {
        "observation": observation_to_wire(obs),
        "reward": None,
        "done": False,
        "metadata": {"info": jsonable(info), **metadata},
    }


def step_from_wire(body: dict[str, Any]) -> StepResult:
    """Parse a ``StepResponse`` body back into ``(obs, reward, terminated, truncated, info)``."""
    meta = body.get("metadata") or {}
    done = bool(body.get("done", False))
    terminated = bool(meta.get("terminated", done))
    truncated = bool(meta.get("truncated", False))
    reward = body.get("reward")
    obs = observation_from_wire(body.get("observation") or {})
    return obs, float(reward or 0.0), terminated, truncated, dict(meta.get("info") or {})


def reset_from_wire(body: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
    """Parse a ``ResetResponse`` body back into ``(obs, info)``."""
    meta = body.get("metadata") or {}
    return observation_from_wire(body.get("observation") or {}), dict(meta.get("info") or {})


MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a request may have."""


class MalformedRequest(ValueError):
    """A request body or message that is not a JSON document the servers accept."""


def parse_json(raw: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """Parse a request body: UTF-8 JSON, finite numbers, nested at most ``max_depth`` deep.

    Raises :class:`MalformedRequest` with a one-line reason for anything else (bad bytes, bad
    JSON, a nesting that would exhaust the parser's stack, ``NaN`` or overflowing numbers).
    """
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as e:
        raise MalformedRequest(f"body is not UTF-8: byte {e.start} is invalid") from e
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except MalformedRequest:
        raise
    except (ValueError, RecursionError) as e:
        reason = f"{e.msg} at {e.pos}" if isinstance(e, json.JSONDecodeError) else "too deep"
        raise MalformedRequest(f"body is not valid JSON: {reason}") from e
    if _depth(value) > max_depth:
        raise MalformedRequest(f"body is nested deeper than {max_depth} levels")
    return value


def _depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value, found without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def _no_constant(name: str) -> Any:
    raise MalformedRequest(f"body is not valid JSON: {name} is not a number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise MalformedRequest(f"body is not valid JSON: number {text[:20]} is out of range")
    return value


def _errors(err: pydantic.ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in err.errors()
    )


def validation_message(err: pydantic.ValidationError) -> str:
    """One line naming each invalid field, for 4xx responses."""
    return _errors(err)


__all__ = [
    "MAX_DEPTH",
    "MalformedRequest",
    "WireAction",
    "WireReset",
    "action_from_wire",
    "action_to_wire",
    "jsonable",
    "observation_from_wire",
    "observation_to_wire",
    "parse_json",
    "reset_from_wire",
    "reset_to_wire",
    "step_from_wire",
    "step_to_wire",
    "validation_message",
]
