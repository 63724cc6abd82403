"""Tracks an episode's page loads, so an action's navigation is awaited before the next look.

A click on a link or a submit button, or Enter in a form, starts a navigation whose response may
come long after the page has drawn its next frame (a form post to a busy server). The old document
then still answers, and the observation would show the page the agent just left, or an empty
``RootWebArea`` caught between commit and parse. :class:`NavigationWatch` listens to the
episode context's main-frame navigation requests and page ``load`` events; the executor waits for
a navigation the action started (:meth:`NavigationWatch.wait_started` races one that starts a
little late, up to a short grace) and the env waits for a pending load before it observes
(:meth:`NavigationWatch.wait_loaded`). Blocked or failed navigations count as finished.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

logger = logging.getLogger(__name__)


class NavigationWatch:
    """Main-frame navigations of one browser context: how many started, whether all loaded."""

    def __init__(self, context: Any) -> None:
        self.starts = 0
        """Main-frame navigation requests seen so far (a counter the executor compares)."""
        self._loaded = asyncio.Event()
        self._loaded.set()
        self._started = asyncio.Event()
        self._pending: set[Any] = set()
        self._context = context
        self._pages: list[Any] = []
        context.on("request", self._on_request)
        context.on("requestfailed", self._on_failed)
        context.on("page", self._on_page)
        for page in context.pages:
            self._on_page(page)

    def close(self) -> None:
        """Stop listening (the context lives on into another episode)."""
        context = self._context
        context.remove_listener("request", self._on_request)
        context.remove_listener("requestfailed", self._on_failed)
        context.remove_listener("page", self._on_page)
        for page in self._pages:
            page.remove_listener("load", self._on_load)
            page.remove_listener("close", self._on_load)
        self._pages.clear()

    def _on_request(self, request: Any) -> None:
        try:
            if not request.is_navigation_request() or request.frame.parent_frame is not None:
                return
        except Exception as e:  # a request of a page that is closing
            logger.debug("navigation tracking: %s", e)
            return
        self.starts += 1
        self._pending.add(request)
        self._loaded.clear()
        self._started.set()

    def _on_failed(self, request: Any) -> None:
        if request in self._pending:  # blocked, aborted or refused: no load will follow
            self._pending.discard(request)
            if not self._pending:
                self._loaded.set()

    def _on_page(self, page: Any) -> None:
        self._pages.append(page)
        page.on("load", self._on_load)
        page.on("close", self._on_load)

    def _on_load(self, *_: Any) -> None:
        self._pending.clear()
        self._loaded.set()

    @property
    def loading(self) -> bool:
        """A navigation started and its page has not fired ``load`` yet."""
        return not self._loaded.is_set()

    async def wait_started(self, since: int, grace_s: float) -> bool:
        """Whether a navigation started after the count ``since``, waiting up to ``grace_s``."""
        if self.starts > since:
            return True
        if grace_s <= 0:
            return False
        self._started.clear()
        try:
            await asyncio.wait_for(self._started.wait(), grace_s)
        except TimeoutError:
            pass
        return self.starts > since

    async def wait_loaded(self, timeout_s: float) -> None:
        """Wait (at most ``timeout_s``) until every started navigation has loaded or failed."""
        if self._loaded.is_set():
            return
        try:
            await asyncio.wait_for(self._loaded.wait(), timeout_s)
        except TimeoutError:
            logger.debug("a navigation did not load within %.1fs", timeout_s)
            self._pending.clear()
            self._loaded.set()


__all__ = ["NavigationWatch"]
