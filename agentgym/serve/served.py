"""One served env and what the HTTP and WebSocket routes do with it.

:class:`ServedEnv` holds an env's session pool and limits; :func:`do_reset`, :func:`do_step` and
:func:`do_expert` run one request against a session (the caller holds its lock) and turn every
failure into an :class:`~fastapi.HTTPException` with a status and a one-line reason. A reset or
step past its deadline is cancelled and the session's env rebuilt (504), so nothing the client
started keeps running after the answer.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from typing import Any

import pydantic
from fastapi import HTTPException, Request

from ..errors import AgentGymError, EnvError, InvalidAction, ResetNeeded
from .guard import DEFAULT_MAX_BODY_BYTES
from .sessions import Session, SessionError, SessionPool
from .wire import (
    MalformedRequest,
    WireReset,
    action_from_wire,
    action_to_wire,
    parse_json,
    reset_to_wire,
    step_to_wire,
    validation_message,
)

logger = logging.getLogger(__name__)


@dataclass
class ServedEnv:
    """One env served by the app: how to make it and its session pool."""

    env_id: str
    pool: SessionPool
    step_timeout_s: float = 300.0
    offer_expert: bool = True
    """Answer ``GET /expert`` (the scripted policy through a remote env)."""
    max_message_bytes: int = DEFAULT_MAX_BODY_BYTES
    """Largest WebSocket message read."""
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


async def _run_env(
    served: ServedEnv, session: Session, coro: Any, timeout_s: float | None
) -> Any:
    limit = min(timeout_s or served.step_timeout_s, served.step_timeout_s)
    try:
        return await asyncio.wait_for(coro, limit)
    except TimeoutError as e:
        await served.pool.recycle(session)  # ends what the env still runs (a sandbox, a thread)
        raise HTTPException(504, f"the env did not answer within {limit:g}s: the request was "
                                 "cancelled and the episode aborted; reset to play on") from e
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
        served, session,
        session.env.areset(seed=request.seed, options=request.env_options()), None,
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
    result = await _run_env(served, session, session.env.astep(action), timeout_s)
    session.step_count += 1
    session.done = bool(result[2] or result[3])
    return step_to_wire(result, session_id=session.id, episode_id=session.episode_id)


async def do_expert(served: ServedEnv, session: Session) -> dict[str, Any]:
    """The expert's actions for ``session``'s current task, as wire actions."""
    from ..rollout.workers import env_expert_actions

    if not served.offer_expert:
        raise HTTPException(403, "this server does not offer the expert (agentgym serve "
                                 "--no-expert)")
    if session.done and session.step_count == 0:
        raise HTTPException(409, "no episode in progress: reset first")
    actions = await _run_env(served, session, asyncio.to_thread(env_expert_actions, session.env),
                             None)
    if actions is None:
        raise HTTPException(404, "this env offers no expert")
    if any(callable(a) for a in actions):
        raise HTTPException(409, "this env's expert acts on the latest page; it cannot be "
                                 "served ahead of the episode")
    return {"task_id": session.state()["task_id"], "actions": [action_to_wire(a)
                                                               for a in actions]}


async def json_body(request: Request) -> Any:
    """The request's JSON body (``{}`` when empty); 400 when it is malformed."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        return parse_json(raw)
    except MalformedRequest as e:
        raise HTTPException(400, str(e)) from e


def parse_body(model: type[pydantic.BaseModel], data: Any) -> Any:
    """Validate ``data`` as ``model``; 422 naming each invalid field otherwise."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        raise HTTPException(422, f"invalid request: {validation_message(e)}") from e


async def read_metadata(served: ServedEnv, split: str | None) -> dict[str, Any]:
    """``served.metadata(split)`` with a 400 when the env cannot be made for ``split``."""
    try:
        return await served.metadata(split)
    except HTTPException:
        raise
    except AgentGymError as e:
        raise HTTPException(400, str(e)) from e
    except Exception as e:  # a split the env rejects, a broken factory
        raise HTTPException(400, f"cannot make the env: {type(e).__name__}: {e}") from e


MAX_TURNS_LIMIT = 10_000
"""Largest turn limit a client may ask of a session."""


def session_kwargs(split: str | None, max_turns: int | None = None) -> dict[str, Any]:
    """The env kwargs a client chose for its session: ``split`` and ``max_turns``; 422 if bad.

    The turn limit is the session's own (the server's ``make`` enforces it, the client does not
    count again); it bounds nothing a client could not do by resetting.
    """
    kwargs = split_kwargs(split)
    if max_turns is not None:
        if isinstance(max_turns, bool) or not 1 <= max_turns <= MAX_TURNS_LIMIT:
            raise HTTPException(422, f"max_turns must be 1..{MAX_TURNS_LIMIT}, got {max_turns}")
        kwargs["max_turns"] = max_turns
    return kwargs


async def open_session(served: ServedEnv, split: str | None, max_turns: int | None = None
                       ) -> Session:
    """Open a session of ``served`` (``split`` and ``max_turns`` chosen by the client); 4xx if
    it cannot be made."""
    kwargs = session_kwargs(split, max_turns)
    try:
        return await served.pool.open(**kwargs)
    except SessionError:
        raise
    except AgentGymError as e:
        raise HTTPException(400, str(e)) from e
    except Exception as e:  # the env could not be made with these kwargs
        raise HTTPException(400, f"cannot make the env: {type(e).__name__}: {e}") from e


__all__ = [
    "MAX_TURNS_LIMIT",
    "ServedEnv",
    "do_expert",
    "do_reset",
    "do_step",
    "json_body",
    "open_session",
    "parse_body",
    "read_metadata",
    "session_kwargs",
    "split_kwargs",
]
