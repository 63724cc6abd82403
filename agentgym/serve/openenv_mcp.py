"""OpenEnv's ``POST /mcp`` route: JSON-RPC tool calls on a served env (OpenEnv's MCP mode).

openenv-core's ``MCPToolClient`` in production mode talks JSON-RPC 2.0 to ``/mcp``:
``openenv/session/create`` (a session with its own env), ``tools/list``, ``tools/call``
(``name``, ``arguments``, ``session_id``) and ``openenv/session/close``. Here:

- ``openenv/session/create`` opens a session (the server's split; optional ``seed``,
  ``task_id``) and resets it; the result holds ``session_id`` and the first ``observation``;
- ``tools/list`` gives the env's tools (name, description, ``input_schema``) plus ``reset``
  (a new episode in the same session: optional ``seed``, ``task_id``);
- ``tools/call`` of an env tool is one env ``step`` with that single tool call, so turn limits,
  rewards and episode ends work as in training; the result's ``data`` holds ``observation``,
  ``reward``, ``terminated``, ``truncated`` and ``done``, its ``content`` the observation text.

Errors are JSON-RPC errors (parse -32700, request -32600, method -32601, params -32602, the env
or session -32000), never a server crash. The route sits behind the server's request guard, like
every other route.
"""

from __future__ import annotations

from typing import Any

import pydantic
from fastapi import APIRouter, HTTPException, Request

from ..errors import AgentGymError
from ..toolcalls import ToolCall
from .served import ServedEnv, do_reset, do_step, open_session
from .sessions import SessionError
from .wire import MalformedRequest, WireReset, parse_json, validation_message

PARSE, REQUEST, METHOD, PARAMS, SERVER = -32700, -32600, -32601, -32602, -32000

_RESET_TOOL = {
    "name": "reset",
    "description": "Start a new episode in this session (optional seed or task_id).",
    "input_schema": {"type": "object", "properties": {
        "seed": {"type": "integer"}, "task_id": {"type": "string"}}},
}


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _reply(request_id: Any, result: Any = None, error: _RpcError | None = None) -> dict[str, Any]:
    if error is not None:
        return {"jsonrpc": "2.0", "id": request_id,
                "error": {"code": error.code, "message": str(error)[:2000]}}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _tools(session: Any) -> list[dict[str, Any]]:
    toolset = getattr(session.env, "tools", None)
    schemas = toolset.to_openai() if toolset is not None and len(toolset) else []
    out = [dict(_RESET_TOOL)]
    for schema in schemas:
        fn = schema.get("function", schema)
        out.append({"name": fn["name"], "description": fn.get("description", ""),
                    "input_schema": fn.get("parameters", {"type": "object"})})
    return out


def _result(body: dict[str, Any]) -> dict[str, Any]:
    text = str(body.get("observation", {}).get("text", ""))
    data = {"observation": text, "reward": body.get("reward"),
            "done": bool(body.get("done", False)),
            "terminated": bool(body.get("metadata", {}).get("terminated", body.get("done"))),
            "truncated": bool(body.get("metadata", {}).get("truncated", False))}
    return {"content": [{"type": "text", "text": text}], "data": data,
            "isError": False}


async def _handle(served: ServedEnv, method: str, params: dict[str, Any]) -> Any:
    pool = served.pool
    if method == "openenv/session/create":
        session = await open_session(served, None)
        try:
            async with pool.use(session.id) as s:
                body = await do_reset(served, s, WireReset(
                    seed=params.get("seed"), task_id=params.get("task_id")))
        except BaseException:
            await pool.close(session.id)
            raise
        return {"session_id": session.id,
                "observation": body.get("observation", {}).get("text", "")}
    session_id = params.get("session_id")
    if method == "openenv/session/close":
        if not isinstance(session_id, str):
            raise _RpcError(PARAMS, "session_id is required")
        return {"session_id": session_id, "closed": await pool.close(session_id)}
    if method not in ("tools/list", "tools/call"):
        raise _RpcError(METHOD, f"unknown method {method!r}: openenv/session/create, "
                                "tools/list, tools/call, openenv/session/close")
    if not isinstance(session_id, str):
        raise _RpcError(PARAMS, "session_id is required (openenv/session/create makes one)")
    async with pool.use(session_id) as session:
        if method == "tools/list":
            return {"tools": _tools(session)}
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise _RpcError(PARAMS, "tools/call needs a name and an arguments object")
        if name == "reset":
            body = await do_reset(served, session, WireReset(
                seed=arguments.get("seed"), task_id=arguments.get("task_id")))
            return _result({**body, "reward": 0.0, "done": False})
        call = ToolCall(name, arguments)
        body = await do_step(served, session, {"tool_calls": [call.to_openai()]})
        return _result(body)


def openenv_mcp_router(served: ServedEnv) -> APIRouter:
    """The ``POST /mcp`` route of one served env."""
    router = APIRouter()

    @router.post("/mcp")
    async def mcp(request: Request) -> dict[str, Any]:
        request_id = None
        try:
            message = parse_json(await request.body())
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" \
                    or not isinstance(message.get("method"), str):
                raise _RpcError(REQUEST, "a JSON-RPC 2.0 request object is expected")
            request_id = message.get("id")
            params = message.get("params", {})
            if not isinstance(params, dict):
                raise _RpcError(PARAMS, "params must be an object")
            return _reply(request_id, await _handle(served, message["method"], params))
        except _RpcError as e:
            return _reply(request_id, error=e)
        except MalformedRequest as e:
            return _reply(request_id, error=_RpcError(PARSE, f"parse error: {e}"))
        except pydantic.ValidationError as e:
            return _reply(request_id, error=_RpcError(PARAMS, validation_message(e)))
        except (HTTPException, SessionError, AgentGymError) as e:
            detail = getattr(e, "detail", None) or str(e)
            return _reply(request_id, error=_RpcError(SERVER, str(detail)))

    return router


__all__ = ["openenv_mcp_router"]
