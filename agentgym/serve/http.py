"""An OpenEnv-compatible reset/step/state server for any agentgym env (FastAPI + WebSocket).

Routes, served at the root for the first env and under ``/<env id>`` (and ``/<alias>``) for every
env::

    GET  /health      {"status": "healthy", "active_sessions", "max_sessions", ...}
    GET  /metadata    name, description, instructions, tools (OpenAI schemas), max_turns; ?split=
    GET  /schema      JSON Schemas of action, observation and state
    GET  /tasks       task ids of the served split (or ?split=)
    POST /reset       body: {"seed", "episode_id", "task_id", "options", "session_id", "split"}
    POST /step        body: {"action": {"content", "tool_calls"}, "session_id"}
    GET  /state       ?session_id=...
    POST /close       body: {"session_id"}
    WS   /ws          messages {"type": "reset"|"step"|"state"|"close", "data": {...}}; ?split=

A client may choose one env argument per session, the task ``split``; the others are the
server's (``agentgym serve`` flags, ``create_app(env_kwargs=...)``).

OpenEnv's HTTP ``/reset`` and ``/step`` build a fresh env per request; here ``/reset`` opens a
session (one env instance) and returns its ``session_id`` in ``metadata``, and ``/step`` names it.
The WebSocket holds one session for the connection's lifetime, as in OpenEnv. Bad requests get a
4xx answer whose ``detail`` says what is wrong; an env that fails gets 500 with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pydantic
from fastapi import APIRouter, FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from ..errors import AgentGymError, EnvError, InvalidAction, ResetNeeded
from ..registry import make, spec
from .sessions import Session, SessionError, SessionPool
from .wire import WireAction, WireReset, action_from_wire, reset_to_wire, step_to_wire

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


@dataclass
class ServedEnv:
    """One env served by the app: how to make it and its session pool."""

    env_id: str
    pool: SessionPool
    step_timeout_s: float = 300.0
    _meta: dict[str | None, dict[str, Any]] = field(default_factory=dict)

    async def metadata(self, split: str | None = None) -> dict[str, Any]:
        """Name, instructions, tools and task ids, read once per split from a probe instance."""
        if split not in self._meta:
            env = await asyncio.to_thread(self.pool.factory, **split_kwargs(split))
            try:
                base = getattr(env, "unwrapped", env)
                toolset = getattr(env, "tools", None)
                task_set = getattr(base, "task_set", None)
                s = getattr(base, "agentgym_spec", None)
                self._meta[split] = {
                    "name": self.env_id,
                    "description": getattr(s, "description", "") or "",
                    "instructions": getattr(env, "instructions", "") or "",
                    "tools": toolset.to_openai() if toolset is not None else [],
                    "max_turns": getattr(env, "max_turns", None),
                    "split": getattr(base, "split", None),
                    "task_ids": list(task_set.ids()) if task_set is not None else [],
                }
            finally:
                await env.aclose()
        return self._meta[split]


_SPLIT = re.compile(r"^[\w.-]{1,64}$")


def split_kwargs(split: str | None) -> dict[str, Any]:
    """The env kwargs a client may choose: only ``split`` (a plain name); 422 otherwise."""
    if split is None:
        return {}
    if not _SPLIT.match(split):
        raise HTTPException(422, f"invalid split {split!r}: letters, digits, '.', '_', '-'")
    return {"split": split}


async def _run_env(served: ServedEnv, coro: Any, timeout_s: float | None) -> Any:
    limit = min(timeout_s or served.step_timeout_s, served.step_timeout_s)
    try:
        return await asyncio.wait_for(coro, limit)
    except TimeoutError as e:
        raise HTTPException(504, f"the env did not answer within {limit:g}s") from e
    except ResetNeeded as e:
        raise HTTPException(409, str(e)) from e
    except (InvalidAction, EnvError) as e:
        raise HTTPException(400, str(e)) from e
    except AgentGymError as e:
        raise HTTPException(400, str(e)) from e
    except Exception as e:  # the env broke: report it, keep serving
        logger.exception("env %s failed", served.env_id)
        raise HTTPException(500, f"env failed: {type(e).__name__}: {e}") from e


async def do_reset(served: ServedEnv, session: Session, request: WireReset) -> dict[str, Any]:
    """Reset ``session``'s env and return the wire body."""
    obs, info = await _run_env(
        served, session.env.areset(seed=request.seed, options=request.env_options()), None
    )
    session.episode_id = request.episode_id or session.id
    session.step_count = 0
    session.done = False
    return reset_to_wire(obs, info, session_id=session.id, episode_id=session.episode_id)


async def do_step(
    served: ServedEnv, session: Session, data: Any, timeout_s: float | None = None
) -> dict[str, Any]:
    """Step ``session``'s env with a wire action and return the wire body."""
    try:
        action = action_from_wire(data)
    except InvalidAction as e:
        raise HTTPException(422, str(e)) from e
    if session.done:
        raise HTTPException(409, "the episode has ended (or never started): reset first")
    result = await _run_env(served, session.env.astep(action), timeout_s)
    session.step_count += 1
    session.done = bool(result[2] or result[3])
    return step_to_wire(result, session_id=session.id, episode_id=session.episode_id)


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


async def _json_body(request: Request) -> Any:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        raise HTTPException(400, f"body is not valid JSON: {e.msg} at {e.pos}") from e


def _parse(model: type[pydantic.BaseModel], data: Any) -> Any:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        from .wire import validation_message

        raise HTTPException(422, f"invalid request: {validation_message(e)}") from e


async def _metadata(served: ServedEnv, split: str | None) -> dict[str, Any]:
    try:
        return await served.metadata(split)
    except HTTPException:
        raise
    except AgentGymError as e:
        raise HTTPException(400, str(e)) from e
    except Exception as e:  # a split the env rejects, a broken factory
        raise HTTPException(400, f"cannot make the env: {type(e).__name__}: {e}") from e


async def _open(served: ServedEnv, split: str | None) -> Session:
    kwargs = split_kwargs(split)
    try:
        return await served.pool.open(**kwargs)
    except SessionError:
        raise
    except AgentGymError as e:
        raise HTTPException(400, str(e)) from e
    except Exception as e:  # the env could not be made with these kwargs
        raise HTTPException(400, f"cannot make the env: {type(e).__name__}: {e}") from e


def env_router(served: ServedEnv) -> APIRouter:
    """The routes of one served env (mounted at the root and under ``/<env id>``)."""
    router = APIRouter()
    pool = served.pool

    @router.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "healthy", "env": served.env_id, **pool.stats()}

    @router.get("/metadata")
    async def metadata(split: str | None = None) -> dict[str, Any]:
        meta = dict(await _metadata(served, split))
        meta.pop("task_ids", None)
        return {**meta, **pool.stats()}

    @router.get("/schema")
    async def schema() -> dict[str, Any]:
        return _schemas()

    @router.get("/tasks")
    async def tasks(split: str | None = None) -> dict[str, Any]:
        meta = await _metadata(served, split)
        return {"split": meta["split"], "task_ids": meta["task_ids"]}

    @router.post("/reset")
    async def reset(request: Request) -> dict[str, Any]:
        body = _parse(WireReset, await _json_body(request))
        if body.session_id is None:
            session = await _open(served, body.split)
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
        body = _parse(StepBody, await _json_body(request))
        async with pool.use(body.session_id) as session:
            return await do_step(served, session, body.action, body.timeout_s)

    @router.get("/state")
    async def state(session_id: str) -> dict[str, Any]:
        return pool.get(session_id).state()

    @router.post("/close")
    async def close(request: Request) -> dict[str, Any]:
        body = _parse(CloseBody, await _json_body(request))
        return {"session_id": body.session_id, "closed": await pool.close(body.session_id)}

    @router.websocket("/ws")
    async def ws(websocket: WebSocket, split: str | None = None) -> None:
        await websocket.accept()
        try:
            session = await _open(served, split)
        except HTTPException as e:
            await _ws_error(websocket, str(e.detail), "VALIDATION_ERROR")
            await websocket.close(code=1008)
            return
        except SessionError as e:
            await _ws_error(websocket, str(e), "CAPACITY_REACHED")
            await websocket.close(code=1013)
            return
        except Exception as e:  # the factory failed: tell the client, do not crash the server
            logger.exception("could not make env %s", served.env_id)
            await _ws_error(websocket, f"could not make the env: {e}", "FACTORY_ERROR")
            await websocket.close(code=1011)
            return
        try:
            await _ws_loop(served, session, websocket)
        except WebSocketDisconnect:
            pass
        finally:
            await pool.close(session.id)

    return router


async def _ws_error(websocket: WebSocket, message: str, code: str) -> None:
    data = {"message": message, "code": code}
    await websocket.send_text(json.dumps({"type": "error", "data": data}))


async def _ws_loop(served: ServedEnv, session: Session, websocket: WebSocket) -> None:
    pool = served.pool
    while True:
        raw = await websocket.receive_text()
        try:
            message = json.loads(raw)
        except json.JSONDecodeError as e:
            await _ws_error(websocket, f"invalid JSON: {e.msg}", "INVALID_JSON")
            continue
        if not isinstance(message, dict):
            await _ws_error(websocket, "a message must be a JSON object", "VALIDATION_ERROR")
            continue
        kind = message.get("type")
        data = message.get("data") or {}
        try:
            async with pool.use(session.id) as s:
                if kind == "reset":
                    reply = {"type": "observation", "data": await do_reset(
                        served, s, _parse(WireReset, {**data, "session_id": None}))}
                elif kind == "step":
                    reply = {"type": "observation", "data": await do_step(served, s, data)}
                elif kind == "state":
                    reply = {"type": "state", "data": s.state()}
                elif kind == "close":
                    return
                else:
                    await _ws_error(websocket, f"unknown message type {kind!r}", "UNKNOWN_TYPE")
                    continue
        except HTTPException as e:
            code = "VALIDATION_ERROR" if e.status_code in (400, 409, 422) else "EXECUTION_ERROR"
            await _ws_error(websocket, str(e.detail), code)
            continue
        except SessionError as e:
            await _ws_error(websocket, str(e), "SESSION_ERROR")
            return
        await websocket.send_text(json.dumps(reply))


def create_app(
    env_ids: str | list[str],
    *,
    max_sessions: int = 256,
    idle_timeout_s: float | None = 600.0,
    step_timeout_s: float = 300.0,
    env_kwargs: dict[str, Any] | None = None,
    factory: Callable[..., Any] | None = None,
) -> FastAPI:
    """The FastAPI app serving ``env_ids`` (the first also at the root).

    Args:
        env_ids: Registered env ids or aliases to serve.
        max_sessions: Open sessions per env; one more is refused with 429.
        idle_timeout_s: Close a session after this long without a request (None: never).
        step_timeout_s: Longest reset or step; past it the request gets 504.
        env_kwargs: Keyword arguments for :func:`agentgym.make`.
        factory: Builds an env from its id and a session's kwargs (default :func:`agentgym.make`).
    """
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    if not ids:
        raise ValueError("serve at least one env")
    def build(env_id: str, **session_kwargs: Any) -> Any:
        if factory is not None:
            return factory(env_id, **session_kwargs)
        return make(env_id, **{**(env_kwargs or {}), **session_kwargs})

    served: list[tuple[str, ServedEnv]] = []
    for name in ids:
        canonical = spec(name).id if factory is None else name
        pool = SessionPool(
            functools.partial(build, canonical),
            max_sessions=max_sessions, idle_timeout_s=idle_timeout_s,
        )
        served.append((name, ServedEnv(canonical, pool, step_timeout_s)))

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
    for name, s in served:
        aliases = spec(s.env_id).aliases if factory is None else ()
        for prefix in sorted({s.env_id, name, *aliases}):
            app.include_router(env_router(s), prefix=f"/{prefix}")

    @app.exception_handler(SessionError)
    async def _session_error(_: Request, exc: SessionError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status_code)

    @app.exception_handler(AgentGymError)
    async def _agentgym_error(_: Request, exc: AgentGymError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    return app


__all__ = ["CloseBody", "ServedEnv", "StepBody", "create_app", "do_reset", "do_step", "env_router"]
