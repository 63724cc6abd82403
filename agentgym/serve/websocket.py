"""The WebSocket side of the OpenEnv-style server: one session per connection.

Messages are JSON text frames ``{"type": "reset"|"step"|"state"|"expert"|"close", "data": {...}}``;
each gets one reply, ``{"type": "observation"|"state"|"expert"|"error", "data": {...}}``.

A message the server cannot use is answered with an ``error`` reply and the connection lives on
(bad JSON, a wrong field, an unknown type). A frame it cannot read at all ends the connection with
a close frame naming the reason: a binary frame (1003), a message over the size limit (1009), the
session gone (1008), an internal failure (1011). The handshake itself passed
:class:`~agentgym.serve.guard.RequestGuard` before any of this runs.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import HTTPException, WebSocket, WebSocketDisconnect

from .served import ServedEnv, do_expert, do_reset, do_step, open_session, parse_body
from .sessions import Session, SessionError
from .wire import MalformedRequest, WireReset, parse_json

logger = logging.getLogger(__name__)

UNSUPPORTED_DATA = 1003
POLICY_VIOLATION = 1008
MESSAGE_TOO_BIG = 1009
INTERNAL_ERROR = 1011
TRY_AGAIN_LATER = 1013


class _Close(Exception):
    """End the connection with a close frame."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


async def serve_websocket(served: ServedEnv, websocket: WebSocket, split: str | None,
                          max_turns: int | None = None) -> None:
    """Accept the connection, open its session, answer messages until the client leaves."""
    await websocket.accept()
    try:
        session = await open_session(served, split, max_turns)
    except HTTPException as e:
        await _error(websocket, str(e.detail), "VALIDATION_ERROR")
        await websocket.close(code=POLICY_VIOLATION, reason=_short(str(e.detail)))
        return
    except SessionError as e:
        await _error(websocket, str(e), "CAPACITY_REACHED")
        await websocket.close(code=TRY_AGAIN_LATER, reason=_short(str(e)))
        return
    except Exception as e:  # the factory failed: tell the client, do not crash the server
        logger.exception("could not make env %s", served.env_id)
        await _error(websocket, f"could not make the env: {e}", "FACTORY_ERROR")
        await websocket.close(code=INTERNAL_ERROR, reason="could not make the env")
        return
    try:
        await _loop(served, session, websocket)
        await websocket.close()
    except WebSocketDisconnect:
        pass
    except _Close as e:
        await _close_quietly(websocket, e.code, e.reason)
    except Exception:  # never drop a connection without a close frame
        logger.exception("WebSocket session %s failed", session.id)
        await _close_quietly(websocket, INTERNAL_ERROR, "internal error")
    finally:
        await served.pool.close(session.id)


async def _receive_text(websocket: WebSocket, limit: int) -> str:
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise _Close(UNSUPPORTED_DATA, "binary frames are not accepted: send JSON text frames")
    if len(text) > limit:
        raise _Close(MESSAGE_TOO_BIG, f"message over {limit} bytes")
    return str(text)


async def _loop(served: ServedEnv, session: Session, websocket: WebSocket) -> None:
    pool = served.pool
    limit = served.max_message_bytes
    while True:
        raw = await _receive_text(websocket, limit)
        try:
            message = parse_json(raw)
        except MalformedRequest as e:
            await _error(websocket, str(e), "INVALID_JSON")
            continue
        if not isinstance(message, dict):
            await _error(websocket, "a message must be a JSON object", "VALIDATION_ERROR")
            continue
        kind = message.get("type")
        data = message.get("data")
        data = {} if data is None else data
        if kind == "close":
            return
        if kind not in ("reset", "step", "state", "expert"):
            await _error(websocket, f"unknown message type {str(kind)[:40]!r}: use reset, step, "
                                    "state, expert or close", "UNKNOWN_TYPE")
            continue
        if kind == "reset" and not isinstance(data, dict):
            await _error(websocket, "reset data must be a JSON object", "VALIDATION_ERROR")
            continue
        try:
            async with pool.use(session.id) as s:
                reply = await _answer(served, s, kind, data)
        except HTTPException as e:
            code = "VALIDATION_ERROR" if e.status_code in (400, 409, 422) else "EXECUTION_ERROR"
            await _error(websocket, str(e.detail), code)
            continue
        except SessionError as e:
            await _error(websocket, str(e), "SESSION_ERROR")
            raise _Close(POLICY_VIOLATION, _short(str(e))) from e
        await websocket.send_text(json.dumps(reply))


async def _answer(served: ServedEnv, session: Session, kind: str, data: Any) -> dict[str, Any]:
    if kind == "reset":
        body = parse_body(WireReset, {**data, "session_id": None})
        return {"type": "observation", "data": await do_reset(served, session, body)}
    if kind == "step":
        return {"type": "observation", "data": await do_step(served, session, data)}
    if kind == "expert":
        return {"type": "expert", "data": await do_expert(served, session)}
    return {"type": "state", "data": session.state()}


async def _error(websocket: WebSocket, message: str, code: str) -> None:
    data = {"message": message, "code": code}
    await websocket.send_text(json.dumps({"type": "error", "data": data}))


async def _close_quietly(websocket: WebSocket, code: int, reason: str) -> None:
    try:
        await websocket.close(code=code, reason=_short(reason))
    except Exception:  # the client is already gone
        logger.debug("close frame not sent", exc_info=True)


def _short(reason: str) -> str:
    """A close reason fits 123 bytes."""
    return reason.encode()[:120].decode("utf-8", "ignore")


__all__ = ["serve_websocket"]
