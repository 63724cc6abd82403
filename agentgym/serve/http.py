"""An OpenEnv-compatible reset/step/state server for any agentgym env (FastAPI + WebSocket).

Routes, served at the root for the first env and under ``/<env id>`` (and ``/<alias>``) for every
env::

    GET  /health      {"status": "healthy", "active_sessions", "max_sessions", ...}
    GET  /metadata    name, description, instructions, tools (OpenAI schemas), max_turns; ?split=
    GET  /schema      JSON Schemas of action, observation and state
    GET  /tasks       the split served and its task ids (or ?split=)
    GET  /expert      ?session_id=...: the expert's actions for the session's task (if offered)
    POST /reset       body: {"seed", "episode_id", "task_id", "options", "session_id", "split",
                             "max_turns"}
    POST /step        body: {"action": {"content", "tool_calls"}, "session_id"}
    GET  /state       ?session_id=...
    POST /close       body: {"session_id"}
    WS   /ws          messages {"type": "reset"|"step"|"state"|"expert"|"close", "data": {...}};
                      ?split=&max_turns=

A client may choose two env arguments per session, the task ``split`` and the turn limit
``max_turns`` (enforced by the server's env, the one place it is); the others are the server's
(``agentgym serve`` flags, ``create_app(env_kwargs=...)``).

OpenEnv's HTTP ``/reset`` and ``/step`` build a fresh env per request; here ``/reset`` opens a
session (one env instance) and returns its ``session_id`` in ``metadata``, and ``/step`` names it.
The WebSocket holds one session for the connection's lifetime, as in OpenEnv (see
:mod:`agentgym.serve.websocket`). Bad requests get a 4xx answer whose ``detail`` says what is
wrong (never a traceback); an env that fails gets 500 with the reason. A reset or step that passes
its deadline is cancelled: the session's env is closed (ending what it still runs) and rebuilt,
and the client gets 504 and must reset.

Every request first passes :class:`~agentgym.serve.guard.RequestGuard` (Host, Origin, bearer
token, JSON content type, body size), as the MCP transport's requests do.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pydantic
from fastapi import APIRouter, FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse

from ..errors import AgentGymError
from ..registry import make, spec
from .guard import GuardSettings, RequestGuard
from .openenv_mcp import openenv_mcp_router
from .served import (
    ServedEnv,
    do_expert,
    do_reset,
    do_step,
    json_body,
    open_session,
    parse_body,
    read_metadata,
)
from .sessions import SessionError, SessionPool
from .websocket import serve_websocket
from .wire import WireAction, WireReset

logger = logging.getLogger(__name__)


class StepBody(pydantic.BaseModel):
    """``POST /step`` body: OpenEnv's ``StepRequest`` with agentgym's ``session_id``."""

    model_config = pydantic.ConfigDict(extra="forbid")

    action: dict[str, Any]
    session_id: str
    timeout_s: float | None = pydantic.Field(default=None, gt=0)
    request_id: str | None = pydantic.Field(default=None, max_length=255)


class CloseBody(pydantic.BaseModel):
    """``POST /close`` body."""

    model_config = pydantic.ConfigDict(extra="forbid")

    session_id: str


def _schemas() -> dict[str, Any]:
    observation = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "images": {"type": "array", "items": {"type": "string", "contentEncoding": "base64"}},
        },
    }
    state = {
        "type": "object",
        "properties": {
            "episode_id": {"type": ["string", "null"]},
            "step_count": {"type": "integer", "minimum": 0},
            "session_id": {"type": "string"},
            "done": {"type": "boolean"},
            "task_id": {"type": ["string", "null"]},
        },
    }
    return {"action": WireAction.model_json_schema(), "observation": observation, "state": state}


def env_router(served: ServedEnv) -> APIRouter:
    """The routes of one served env (mounted at the root and under ``/<env id>``)."""
    router = APIRouter()
    pool = served.pool

    @router.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "healthy", "env": served.env_id, **pool.stats()}

    @router.get("/metadata")
    async def metadata(split: str | None = None) -> dict[str, Any]:
        meta = dict(await read_metadata(served, split))
        meta.pop("task_ids", None)
        return {**meta, **pool.stats()}

    @router.get("/schema")
    async def schema() -> dict[str, Any]:
        return _schemas()

    @router.get("/tasks")
    async def tasks(split: str | None = None) -> dict[str, Any]:
        meta = await read_metadata(served, split)
        return {"split": meta["split"], "task_ids": meta["task_ids"]}

    @router.post("/reset")
    async def reset(request: Request) -> dict[str, Any]:
        body = parse_body(WireReset, await json_body(request))
        if body.session_id is None:
            session = await open_session(served, body.split, body.max_turns)
        else:
            session = pool.get(body.session_id)
        try:
            async with pool.use(session.id) as s:
                return await do_reset(served, s, body)
        except BaseException:
            if body.session_id is None:  # a failed first reset must not leak the session
                await pool.close(session.id)
            raise

    @router.post("/step")
    async def step(request: Request) -> dict[str, Any]:
        body = parse_body(StepBody, await json_body(request))
        async with pool.use(body.session_id) as session:
            return await do_step(served, session, body.action, body.timeout_s)

    @router.get("/state")
    async def state(session_id: str) -> dict[str, Any]:
        return pool.get(session_id).state()

    @router.get("/expert")
    async def expert(session_id: str) -> dict[str, Any]:
        async with pool.use(session_id) as session:
            return await do_expert(served, session)

    @router.post("/close")
    async def close(request: Request) -> dict[str, Any]:
        body = parse_body(CloseBody, await json_body(request))
        return {"session_id": body.session_id, "closed": await pool.close(body.session_id)}

    @router.websocket("/ws")
    async def ws(websocket: WebSocket, split: str | None = None,
                 max_turns: int | None = None) -> None:
        await serve_websocket(served, websocket, split, max_turns)

    return router


def create_app(
    env_ids: str | list[str],
    *,
    max_sessions: int = 256,
    idle_timeout_s: float | None = 600.0,
    step_timeout_s: float = 300.0,
    env_kwargs: dict[str, Any] | None = None,
    factory: Callable[..., Any] | None = None,
    guard: GuardSettings | None = None,
    offer_expert: bool = True,
) -> FastAPI:
    """The FastAPI app serving ``env_ids`` (the first also at the root).

    Args:
        env_ids: Registered env ids or aliases to serve.
        max_sessions: Open sessions per env; one more is refused with 429.
        idle_timeout_s: Close a session after this long without a request (None: never).
        step_timeout_s: Longest reset or step; past it the request gets 504.
        env_kwargs: Keyword arguments for :func:`agentgym.make`.
        factory: Builds an env from its id and a session's kwargs (default :func:`agentgym.make`).
        guard: What requests are let in (default: loopback Host and Origin only, no token; see
            :func:`agentgym.serve.guard.guard_for`).
        offer_expert: Answer ``GET /expert`` so the scripted policy works through a remote env.
    """
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    if not ids:
        raise ValueError("serve at least one env")
    def build(env_id: str, **session_kwargs: Any) -> Any:
        if factory is not None:
            return factory(env_id, **session_kwargs)
        return make(env_id, **{**(env_kwargs or {}), **session_kwargs})

    settings = guard or GuardSettings()
    served: list[tuple[str, ServedEnv]] = []
    for name in ids:
        canonical = spec(name).id if factory is None else name
        pool = SessionPool(
            functools.partial(build, canonical),
            max_sessions=max_sessions, idle_timeout_s=idle_timeout_s,
        )
        served.append((name, ServedEnv(canonical, pool, step_timeout_s, offer_expert,
                                          settings.max_body_bytes)))

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        for _name, s in served:
            s.pool.start_reaper()
        try:
            yield
        finally:
            for _name, s in served:
                await s.pool.close_all()

    app = FastAPI(title="agentgym env server", lifespan=lifespan)
    app.state.served = {s.env_id: s for _, s in served}
    app.include_router(env_router(served[0][1]))
    app.include_router(openenv_mcp_router(served[0][1]))  # OpenEnv's MCP mode
    for name, s in served:
        aliases = spec(s.env_id).aliases if factory is None else ()
        for prefix in sorted({s.env_id, name, *aliases}):
            app.include_router(env_router(s), prefix=f"/{prefix}")
            app.include_router(openenv_mcp_router(s), prefix=f"/{prefix}")

    @app.exception_handler(SessionError)
    async def _session_error(_: Request, exc: SessionError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status_code)

    @app.exception_handler(AgentGymError)
    async def _agentgym_error(_: Request, exc: AgentGymError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        logger.error("request failed", exc_info=exc)  # the trace stays in the server's log
        return JSONResponse({"detail": f"internal error ({type(exc).__name__})"}, status_code=500)

    app.add_middleware(RequestGuard, settings=settings)
    return app


__all__ = [
    "CloseBody",
    "ServedEnv",
    "StepBody",
    "create_app",
    "env_router",
]
