"""A client for OpenEnv's reset/step/state protocol, written from OpenEnv's documentation.

It knows nothing of agentgym: it speaks the documented shapes (``ResetResponse`` /
``StepResponse`` with ``observation``, ``reward``, ``done``, ``metadata``; ``State`` with
``episode_id`` and ``step_count``; WebSocket messages ``{"type": "reset"|"step"|"state"|"close",
"data": ...}`` answered by ``{"type": "observation"|"state"|"error", "data": ...}``) and validates
every answer against them. agentgym's one addition is that HTTP ``/step`` names the session that
``/reset`` opened (OpenEnv's ``StepRequest`` allows extra fields).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any, Literal

import httpx
import pydantic
from websockets.sync.client import connect


class ResetResponse(pydantic.BaseModel):
    """OpenEnv ``ResetResponse``."""

    model_config = pydantic.ConfigDict(extra="forbid")
    observation: dict[str, Any]
    reward: float | None = None
    done: bool = False
    metadata: dict[str, Any] | None = None


class StepResponse(ResetResponse):
    """OpenEnv ``StepResponse`` (same fields)."""


class State(pydantic.BaseModel):
    """OpenEnv ``State`` (extra fields allowed)."""

    model_config = pydantic.ConfigDict(extra="allow")
    episode_id: str | None = None
    step_count: int = pydantic.Field(ge=0)


class WSReply(pydantic.BaseModel):
    """Any WebSocket answer."""

    model_config = pydantic.ConfigDict(extra="forbid")
    type: Literal["observation", "state", "error"]
    data: dict[str, Any]


class OpenEnvHTTP:
    """The HTTP half: /health, /schema, /metadata, /reset, /step, /state."""

    def __init__(self, base_url: str) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=30)
        self.session_id: str | None = None

    def health(self) -> dict[str, Any]:
        """``GET /health``; must say healthy."""
        body = self.http.get("/health").raise_for_status().json()
        if body.get("status") != "healthy":
            raise AssertionError(f"unhealthy: {body}")
        return body

    def schema(self) -> dict[str, Any]:
        """``GET /schema``: action, observation and state schemas."""
        body = self.http.get("/schema").raise_for_status().json()
        if set(body) != {"action", "observation", "state"}:
            raise AssertionError(f"schema keys: {sorted(body)}")
        return body

    def reset(self, **params: Any) -> ResetResponse:
        """``POST /reset`` (seed, episode_id, extra fields)."""
        body = ResetResponse.model_validate(
            self.http.post("/reset", json=params).raise_for_status().json()
        )
        self.session_id = (body.metadata or {}).get("session_id")
        return body

    def step(self, action: dict[str, Any]) -> StepResponse:
        """``POST /step``."""
        payload = {"action": action, "session_id": self.session_id}
        return StepResponse.model_validate(
            self.http.post("/step", json=payload).raise_for_status().json()
        )

    def state(self) -> State:
        """``GET /state``."""
        params = {"session_id": self.session_id} if self.session_id else {}
        response = self.http.get("/state", params=params).raise_for_status()
        return State.model_validate(response.json())


class OpenEnvWS:
    """The WebSocket half: one session per connection."""

    def __init__(self, ws_url: str) -> None:
        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(connect(ws_url))

    def send(self, type_: str, data: dict[str, Any] | None = None) -> WSReply:
        """Send one message and validate the answer."""
        message: dict[str, Any] = {"type": type_}
        if data is not None:
            message["data"] = data
        self.ws.send(json.dumps(message))
        return WSReply.model_validate_json(self.ws.recv(timeout=30))

    def reset(self, **params: Any) -> ResetResponse:
        """``reset`` -> ``observation``."""
        reply = self.send("reset", params)
        if reply.type != "observation":
            raise AssertionError(f"reset answered {reply}")
        return ResetResponse.model_validate(reply.data)

    def step(self, action: dict[str, Any]) -> StepResponse:
        """``step`` -> ``observation``."""
        reply = self.send("step", action)
        if reply.type != "observation":
            raise AssertionError(f"step answered {reply}")
        return StepResponse.model_validate(reply.data)

    def state(self) -> State:
        """``state`` -> ``state``."""
        reply = self.send("state")
        return State.model_validate(reply.data)

    def close(self) -> None:
        """``close`` then hang up."""
        self.ws.send(json.dumps({"type": "close"}))
        self._stack.close()
