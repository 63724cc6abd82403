"""One episode's browser state: an incognito context, its tabs, CDP sessions and network policy.

A :class:`BrowserSession` is handed out by :meth:`BrowserPool.new_session
<agentgym.sandboxes.browser.BrowserPool.new_session>`. It owns a fresh Playwright
``BrowserContext`` (no cookies, storage or cache shared with any other episode), tracks the open
tabs and the active one, and routes every request through its :class:`NetworkPolicy`: requests to
an origin outside the allowed set are aborted before they leave the browser and counted.

Every call into the browser goes through :meth:`BrowserSession.guard`, which bounds it in time and
turns a dead or hung browser into :class:`BrowserCrashed` (an infrastructure failure: the episode
is aborted, never scored), while an ordinary Playwright error (a detached element, a page that
refused to load) stays a :class:`playwright.async_api.Error` for the env to show the model.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from agentgym.errors import InfrastructureError
from agentgym.sandbox import SandboxError

from ._browser_policy import ALWAYS_ALLOWED_SCHEMES, NetworkPolicy, origin_of

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, CDPSession, Page, Route

    from ._browser_egress import EgressGate
    from ._browser_process import BrowserHandle

logger = logging.getLogger(__name__)
T = TypeVar("T")


class BrowserCrashed(InfrastructureError, SandboxError):
    """The browser process died or stopped answering; the episode is aborted, not scored."""


class PolicyChanged(SandboxError, ValueError):
    """:meth:`BrowserSession.recycle` was given other allowed origins than the context's proxy
    was made for; open a new session instead."""


STORAGE_TYPES = "local_storage,indexeddb,cache_storage,service_workers"
"""What :meth:`BrowserSession.recycle` clears for each allowed origin (with the cookies and the
cache); CDP's ``all`` adds rarely used stores and costs ten times as long."""

CLOSE_RESEND_S = 1.0
"""How long a tab's close may take before it is sent again (a resend to a tab that was closing
anyway is harmless: an error from a tab already gone is ignored)."""


class BrowserSession:
    """A fresh browser context for one episode, with its tabs and network policy.

    Use :attr:`page` (the active tab) and :meth:`cdp` (a CDP session on it); open and switch tabs
    with :meth:`new_tab`, :meth:`focus_tab` and :meth:`close_tab`. Close it with :meth:`aclose`
    (the pool slot is freed even when the browser is already dead).
    """

    def __init__(
        self,
        handle: BrowserHandle,
        context: BrowserContext,
        policy: NetworkPolicy,
        timeout_s: float,
        release: Callable[[BrowserSession], None],
        gate: EgressGate | None = None,
        bypass: str = "",
    ) -> None:
        self.handle = handle
        self.context = context
        self.policy = policy
        self.gate = gate
        """The context's refusing proxy (:mod:`._browser_egress`); it counts on
        :attr:`policy`."""
        self.bypass = bypass
        """The proxy bypass rules the context was made with (its allowed hosts and ports)."""
        if gate is not None:
            gate.on_block = self._egress_blocked
        self.timeout_s = timeout_s
        self.pages: list[Page] = []
        self.active = 0
        self._cdp: dict[int, asyncio.Future[CDPSession]] = {}
        self._release = release
        self.closed = False
        self._spare_tab: asyncio.Task[Page] | None = None
        self._limbo: list[Page] | None = None
        """Pages that appeared while a spare tab was being opened (sorted out afterwards)."""
        context.on("page", self._on_page)

    # -- setup ---------------------------------------------------------------------------

    async def _start(self, page: Page | None = None) -> None:
        """Install the network policy and the first tab (``page``, else a new one)."""
        self.context.set_default_timeout(self.timeout_s * 1000)  # guard() bounds every call
        await self.guard(self.context.route(self.policy.block_pattern(), self._route))
        if page is None:
            page = await self.guard(self.context.new_page())
        if page not in self.pages:
            self.pages.append(page)
            page.on("close", self._on_close)

    def _on_page(self, page: Page) -> None:
        if self._limbo is not None:  # a spare tab is being opened: is this it or a popup?
            self._limbo.append(page)
            return
        # popups and window.open() land here; the new tab becomes active, as in WebArena
        if page not in self.pages:
            self.pages.append(page)
            self.active = len(self.pages) - 1
        page.on("close", self._on_close)

    def _on_close(self, page: Page) -> None:
        self._cdp.pop(id(page), None)
        if page in self.pages:
            index = self.pages.index(page)
            self.pages.remove(page)
            if self.active >= index and self.active > 0:
                self.active -= 1

    def _egress_blocked(self, target: str) -> None:
        self.policy.record_block(target)

    async def _route(self, route: Route) -> None:
        url = route.request.url
        try:
            if self.policy.allows(url):
                await route.continue_()
            else:
                self.policy.record_block(url)
                await route.abort("blockedbyclient")
        except Exception as e:  # the context may close while a request is in flight
            logger.debug("route handling for %s failed: %s", url[:100], e)

    # -- access --------------------------------------------------------------------------

    @property
    def page(self) -> Page:
        """The active tab."""
        if not self.pages:
            raise BrowserCrashed("the episode has no open tab left")
        return self.pages[min(self.active, len(self.pages) - 1)]

    async def cdp(self, method: str, params: dict[str, Any] | None = None, *,
                  page: Page | None = None) -> dict[str, Any]:
        """Send a CDP command to the active tab, or to ``page`` (bounded by the session
        timeout)."""
        page = page or self.page
        opening = self._cdp.get(id(page))
        if opening is None:  # one CDP session per tab, also for concurrent first calls
            opening = self._cdp[id(page)] = asyncio.ensure_future(
                self.guard(self.context.new_cdp_session(page)))
        try:
            session = await asyncio.shield(opening)
        except BaseException:
            if self._cdp.get(id(page)) is opening and opening.done():
                del self._cdp[id(page)]  # a failed open is retried by the next call
            raise
        result = await self.guard(session.send(method, params or {}))
        return dict(result)

    async def guard(self, awaitable: Awaitable[T], timeout_s: float | None = None) -> T:
        """Await a browser call; a dead or hung browser raises :class:`BrowserCrashed`.

        A call that times out while the browser still answers a liveness probe is an ordinary
        slow page: :class:`TimeoutError` is raised for the env to report to the model.
        """
        if self.handle.dead:
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            raise BrowserCrashed(f"browser {self.handle.pid} is gone: {self.handle.dead_reason}")
        try:
            return await asyncio.wait_for(awaitable, timeout_s or self.timeout_s)
        except TimeoutError:
            if not await self.handle.responsive():
                await self.handle.kill("hung: no answer to a liveness probe")
                raise BrowserCrashed(f"browser {self.handle.pid} hung") from None
            raise
        except Exception as e:
            if self.handle.dead or not self.handle.browser.is_connected():
                raise BrowserCrashed(
                    f"browser {self.handle.pid} died: {self.handle.dead_reason or e}"
                ) from e
            raise

    # -- tabs ----------------------------------------------------------------------------

    async def new_tab(self, url: str | None = None) -> Page:
        """Open a tab, make it active and optionally load ``url``."""
        page = await self.guard(self.context.new_page())
        if page not in self.pages:
            self.pages.append(page)
        self.active = self.pages.index(page)
        if url:
            await self.guard(page.goto(url))
        return page

    async def focus_tab(self, index: int) -> None:
        """Make tab ``index`` (0-based) active."""
        if not 0 <= index < len(self.pages):
            raise IndexError(f"no tab {index}; open tabs: 0..{len(self.pages) - 1}")
        self.active = index
        await self.guard(self.page.bring_to_front())

    async def close_tab(self) -> None:
        """Close the active tab (the last tab is replaced by a blank one)."""
        page = self.page
        await self._stop_loading(page)
        await self._close_page(page)
        self._on_close(page)  # its close event may come later than close() returns
        if not self.pages:
            await self.new_tab()

    # -- reuse ---------------------------------------------------------------------------

    async def recycle(self, policy: NetworkPolicy, *, clear_cache: bool = True) -> None:
        """Clear this context for a new episode instead of opening a fresh one.

        A new blank tab replaces every open tab (no history, a new ``sessionStorage``; closing
        the old ones runs their unload handlers before anything is cleared); then,
        concurrently, the context's cookies, the HTTP cache (unless ``clear_cache`` is False,
        for sites whose files never change) and all storage of the policy's origins (local
        storage, IndexedDB, cache storage, service workers) are cleared. ``policy`` (fresh
        counters) replaces the old one. What is kept is the context itself, warm inside
        Chromium, so the next page loads without a new context and a cold renderer. The blank
        tab is the one :meth:`open_spare_tab` opened meanwhile, if it was called.

        Every other tab of the context is closed, whether or not :attr:`pages` knew it (a tab
        that escaped the bookkeeping would otherwise keep its renderer process for as long as
        the context is reused). ``policy`` must allow the same hosts and ports as the context
        was made for (its proxy cannot change): otherwise :class:`PolicyChanged` is raised and
        nothing is cleared.
        """
        if policy.bypass_rules() != self.bypass:
            raise PolicyChanged("the new episode allows other origins than this context's "
                                "proxy was made for")
        spare = await self._take_spare_tab()
        fresh = spare if spare is not None else await self.guard(self.context.new_page())
        self.pages, self.active = [fresh], 0
        for _ in range(3):  # tabs opened while the old ones close are closed too
            old = [p for p in self.context.pages if p is not fresh and not p.is_closed()]
            if not old:
                break
            await asyncio.gather(*(self._stop_loading(page) for page in old))
            for page in old:
                await self._close_page(page)
                self._cdp.pop(id(page), None)
        self.pages, self.active = [fresh], 0
        if spare is not None:  # it bypassed _on_page
            spare.on("close", self._on_close)
        clears: list[Awaitable[Any]] = [self.guard(self.context.clear_cookies())]
        clears += [self.cdp("Storage.clearDataForOrigin", {"origin": origin,
                                                           "storageTypes": STORAGE_TYPES})
                   for origin in sorted(policy.origins())]
        if clear_cache:
            clears.append(self.cdp("Network.clearBrowserCache"))
        await asyncio.gather(*clears)
        if policy.block_pattern().pattern != self.policy.block_pattern().pattern:
            await self.guard(self.context.unroute(self.policy.block_pattern()))
            await self.guard(self.context.route(policy.block_pattern(), self._route))
        self.policy = policy

    async def _stop_loading(self, page: Page) -> None:
        """Stop ``page``'s navigation before it is closed: Chromium sometimes never finishes
        closing a tab caught just after a navigation commits while another tab is open (seen in
        about 1 of 5 closes in that state, none after a stop)."""
        try:
            await self.cdp("Page.stopLoading", page=page)
        except BrowserCrashed:
            raise
        except Exception as e:  # already closing or closed: close() sorts it out
            logger.debug("stopping a tab's navigation failed: %s", e)

    async def _close_page(self, page: Page) -> None:
        """Close ``page``. Chromium sometimes drops the close of a tab caught just after a
        navigation commits (the tab then stays open for good, about one close in a hundred in
        that state even after :meth:`_stop_loading`); a second ``Target.closeTarget`` after
        :data:`CLOSE_RESEND_S` goes through."""
        closing = asyncio.ensure_future(page.close())
        try:
            await asyncio.wait_for(asyncio.shield(closing), CLOSE_RESEND_S)
            return
        except TimeoutError:
            pass
        except BaseException:
            closing.cancel()
            raise
        try:
            info = await self.cdp("Target.getTargetInfo", page=page)
            await self.handle.browser_cdp("Target.closeTarget",
                                          {"targetId": info["targetInfo"]["targetId"]},
                                          timeout_s=self.timeout_s)
        except BrowserCrashed:
            closing.cancel()
            raise
        except Exception as e:  # closed meanwhile, or the browser is in trouble: guard decides
            logger.debug("closing a tab again failed: %s", e)
        await self.guard(closing)

    def open_spare_tab(self) -> None:
        """Start opening, in the background, the blank tab the next :meth:`recycle` will use
        (a no-op while one is pending). Opening a tab costs Chromium about as much as loading a
        page: call it once the episode's first page has loaded, so the two do not compete."""
        if self._spare_tab is None and not self.closed:
            self._spare_tab = asyncio.ensure_future(self._open_spare_tab())

    async def _open_spare_tab(self) -> Page:
        """A blank tab for the next :meth:`recycle`, kept out of :attr:`pages` (it has loaded
        nothing, and no page can reach an unrelated tab, so it carries no state)."""
        self._limbo = []
        spare: Page | None = None
        try:
            spare = await self.guard(self.context.new_page())
            if self.pages and not self.closed:  # a new tab takes the focus: give it back, or
                try:                                 # the episode's tab stops drawing
                    await self.guard(self.page.bring_to_front())
                except BrowserCrashed:
                    raise
                except Exception as e:  # the episode's tab is closing: nothing to give back
                    logger.debug("refocusing after the spare tab failed: %s", e)
            return spare
        except BaseException:
            if spare is not None:  # a spare nobody will take must not outlive its episode
                await self._close_quietly(spare)
            raise
        finally:
            arrived, self._limbo = self._limbo or [], None
            for page in arrived:
                if page is not spare:
                    self._on_page(page)  # a popup opened meanwhile is an ordinary tab

    async def _close_quietly(self, page: Page) -> None:
        try:
            await asyncio.wait_for(page.close(), self.timeout_s)
        except Exception as e:  # already closed, or the browser is gone
            logger.debug("closing a tab failed: %s", e)

    async def _take_spare_tab(self) -> Page | None:
        task, self._spare_tab = self._spare_tab, None
        if task is None:
            return None
        try:
            page = await task
        except Exception as e:  # a failed spare: the caller opens a tab itself
            logger.debug("spare tab failed: %s", e)
            return None
        return None if page.is_closed() else page

    # -- teardown ------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the context and free the pool slot (never raises)."""
        if self.closed:
            return
        self.closed = True
        if self._spare_tab is not None and not self._spare_tab.done():
            self._spare_tab.cancel()
        try:
            if not self.handle.dead:
                await asyncio.wait_for(self.context.close(), self.timeout_s)
        except Exception as e:  # a dead browser cannot close its context; the slot is freed
            logger.debug("closing a browser context failed: %s", e)
        finally:
            self._cdp.clear()
            self.pages.clear()
            if self.gate is not None:
                await self.gate.aclose()
            self._release(self)


__all__ = ["ALWAYS_ALLOWED_SCHEMES", "BrowserCrashed", "BrowserSession", "NetworkPolicy",
           "PolicyChanged", "origin_of"]
