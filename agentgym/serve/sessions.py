"""Sessions of a served env: one env instance each, a cap on how many, and an idle timeout.

Both servers (OpenEnv-style HTTP/WebSocket and MCP) keep their env instances here. A session is
opened by a client (a WebSocket connection, an HTTP ``/reset`` without ``session_id``, an MCP
``reset``), used by one caller at a time (a per-session lock), and closed by the client, by the
idle reaper after ``idle_timeout_s`` without a request, or at server shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import AgentGymError

logger = logging.getLogger(__name__)


class SessionError(AgentGymError):
    """A session request that cannot be served (unknown id, capacity reached)."""

    status_code = 400


class SessionNotFound(SessionError):
    """No open session has this id (closed, expired, or opened before a server restart)."""

    status_code = 404


class SessionLimitReached(SessionError):
    """The server already holds ``max_sessions`` sessions."""

    status_code = 429


@dataclass
class Session:
    """One client's env instance and its bookkeeping."""

    id: str
    env: Any
    created_at: float = field(default_factory=time.time)
    last_active: float = field(default_factory=time.monotonic)
    step_count: int = 0
    episode_id: str | None = None
    done: bool = True
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    kwargs: dict[str, Any] = field(default_factory=dict)
    """The env kwargs the session was opened with (to rebuild its env)."""

    def touch(self) -> None:
        """Mark activity now (postpones the idle timeout)."""
        self.last_active = time.monotonic()

    def state(self) -> dict[str, Any]:
        """OpenEnv's ``State``: episode id and step count, plus agentgym's session fields."""
        base = getattr(self.env, "unwrapped", self.env)
        task = getattr(base, "task", None)
        return {
            "episode_id": self.episode_id,
            "step_count": self.step_count,
            "session_id": self.id,
            "done": self.done,
            "task_id": getattr(task, "task_id", None),
        }


class SessionPool:
    """Open, look up, expire and close sessions of one env factory.

    Args:
        factory: Builds one env instance (called in a worker thread with the session's kwargs).
        max_sessions: Sessions open at once; one more gets :class:`SessionLimitReached`.
        idle_timeout_s: A session without requests for this long is closed (None: never).
    """

    def __init__(
        self,
        factory: Callable[..., Any],
        *,
        max_sessions: int = 256,
        idle_timeout_s: float | None = 600.0,
    ) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be >= 1, got {max_sessions}")
        self.factory = factory
        self.max_sessions = max_sessions
        self.idle_timeout_s = idle_timeout_s
        self._sessions: dict[str, Session] = {}
        self._reserved = 0
        self._guard = asyncio.Lock()
        self._reaper: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._sessions)

    async def open(self, **env_kwargs: Any) -> Session:
        """Make a new env (``factory(**env_kwargs)``) and register its session.

        Raises :class:`SessionLimitReached` when the pool is full.
        """
        async with self._guard:
            if len(self._sessions) + self._reserved >= self.max_sessions:
                raise SessionLimitReached(
                    f"the server holds its maximum of {self.max_sessions} sessions; "
                    "close one or retry later"
                )
            self._reserved += 1
        try:
            env = await asyncio.to_thread(self.factory, **env_kwargs)
        finally:
            async with self._guard:
                self._reserved -= 1
        session = Session(uuid.uuid4().hex, env, kwargs=dict(env_kwargs))
        async with self._guard:
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> Session:
        """The open session ``session_id``; :class:`SessionNotFound` otherwise."""
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionNotFound(
                f"unknown session {session_id!r}: it was closed, expired after "
                f"{self.idle_timeout_s}s idle, or opened before a server restart"
            )
        session.touch()
        return session

    @contextlib.asynccontextmanager
    async def use(self, session_id: str) -> AsyncIterator[Session]:
        """Hold ``session_id``'s lock while the caller resets or steps its env."""
        session = self.get(session_id)
        async with session.lock:
            if session.id not in self._sessions:
                raise SessionNotFound(f"session {session_id!r} was closed")
            yield session
            session.touch()

    async def recycle(self, session: Session) -> None:
        """Abort ``session``'s episode: close its env (ending whatever it still runs) and make a
        fresh one; the caller holds the session's lock. If no env can be made the session closes.
        """
        old, session.done = session.env, True
        await _close_env(old)
        try:
            session.env = await asyncio.to_thread(self.factory, **session.kwargs)
        except Exception:  # the env cannot be rebuilt: the session ends with it
            logger.exception("could not rebuild the env of session %s", session.id)
            async with self._guard:
                self._sessions.pop(session.id, None)
            raise SessionNotFound(f"session {session.id!r} was closed: its env failed") from None

    async def close(self, session_id: str) -> bool:
        """Close one session (its env too); False when it was not open."""
        async with self._guard:
            session = self._sessions.pop(session_id, None)
        if session is None:
            return False
        await _close_env(session.env)
        return True

    async def close_all(self) -> None:
        """Close every session and stop the reaper."""
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        for session_id in list(self._sessions):
            await self.close(session_id)

    def start_reaper(self) -> None:
        """Start the idle-session reaper on the running loop (no-op without a timeout)."""
        if self.idle_timeout_s is not None and self._reaper is None:
            self._reaper = asyncio.create_task(self._reap(self.idle_timeout_s))

    async def reap_once(self) -> list[str]:
        """Close the sessions idle longer than the timeout; returns their ids."""
        if self.idle_timeout_s is None:
            return []
        now = time.monotonic()
        stale = [
            s.id
            for s in list(self._sessions.values())
            if now - s.last_active > self.idle_timeout_s and not s.lock.locked()
        ]
        for session_id in stale:
            logger.info("closing idle session %s", session_id)
            await self.close(session_id)
        return stale

    async def _reap(self, timeout_s: float) -> None:
        interval = min(max(timeout_s / 4, 0.05), 30.0)
        while True:
            await asyncio.sleep(interval)
            try:
                await self.reap_once()
            except Exception:  # the reaper must outlive one bad close
                logger.exception("idle-session reaper failed; retrying")

    def states(self) -> list[dict[str, Any]]:
        """The state of every open session."""
        return [s.state() for s in list(self._sessions.values())]

    def stats(self) -> dict[str, Any]:
        """Open sessions and the limits, for ``/health`` and ``/metadata``."""
        return {
            "active_sessions": len(self._sessions),
            "max_sessions": self.max_sessions,
            "idle_timeout_s": self.idle_timeout_s,
        }


async def _close_env(env: Any) -> None:
    try:
        await asyncio.wait_for(env.aclose(), timeout=30.0)
    except Exception:  # a broken env is discarded anyway
        logger.warning("closing a session's env failed", exc_info=True)


__all__ = [
    "Session",
    "SessionError",
    "SessionLimitReached",
    "SessionNotFound",
    "SessionPool",
]
