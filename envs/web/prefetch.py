"""The next episode's browser session, opened and prepared while the current episode runs.

A reset that opens a context, spawns a renderer and loads the start page costs the better part of
a second; a :class:`Prefetcher` does that work in the background right after a reset, so the next
reset takes a session that is ready. The session is still fresh: no episode has used it (the
env's :meth:`~agentgym.envs.web.WebEnv.prepare_session` only loads what every episode starts
from, such as a task page before its seed is applied). A prefetch that fails or that finds a dead
browser is dropped and the reset opens a session the ordinary way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from agentgym.sandboxes.browser import BrowserSession

logger = logging.getLogger(__name__)


class Prefetcher:
    """Holds at most one session being opened in the background for the next episode."""

    def __init__(self) -> None:
        self._task: asyncio.Task[BrowserSession] | None = None

    @property
    def pending(self) -> bool:
        """A prefetched session is being opened or waits to be taken."""
        return self._task is not None

    def start(self, open_session: Callable[[], Awaitable[BrowserSession]]) -> None:
        """Start opening the next session with ``open_session`` (no-op when one is pending)."""
        if self._task is None:
            self._task = asyncio.ensure_future(open_session())

    async def take(self) -> BrowserSession | None:
        """The prefetched session (waiting for it to be ready), or None when there is none or
        it failed."""
        task, self._task = self._task, None
        if task is None:
            return None
        try:
            session = await task
        except Exception as e:  # a failed prefetch: the caller opens a session itself
            logger.debug("prefetched browser session failed: %s", e)
            return None
        if session.closed or session.handle.dead:
            await session.aclose()
            return None
        return session

    async def aclose(self) -> None:
        """Drop the pending session (closing it if it was opened)."""
        task, self._task = self._task, None
        if task is None:
            return
        if not task.done():
            task.cancel()
        try:
            session = await task
        except BaseException:  # cancelled or failed: nothing to close
            return
        await session.aclose()


__all__ = ["Prefetcher"]
