"""The browser sandbox: a bounded pool of headless Chromium processes driven by Playwright.

>>> from agentgym.sandboxes.browser import BrowserPool, NetworkPolicy
>>> async def main():                                     # doctest: +SKIP
...     async with BrowserPool() as pool:
...         session = await pool.new_session(NetworkPolicy(["http://127.0.0.1:8000"]))
...         await session.page.goto("http://127.0.0.1:8000/")
...         await session.aclose()

Design:

- Chromium is Debian's (``/usr/lib/chromium/chromium`` or ``/usr/bin/chromium``; override with
  ``AGENTGYM_CHROMIUM``), launched through Playwright's async API by its path; Playwright's own
  browser download (``playwright install``) is never used.
- A pool lives on one event loop. It launches at most ``max_browsers`` processes, each hosting at
  most ``contexts_per_browser`` episodes; a further :meth:`BrowserPool.new_session` waits for a
  free slot. Every episode gets a fresh incognito context (:class:`BrowserSession`).
- A browser that disconnects (crash, OOM kill) or fails a liveness probe after a timed-out call
  is marked dead and its process tree is killed; its sessions raise :class:`BrowserCrashed` and
  the next :meth:`new_session` launches a replacement. Other browsers' episodes go on.
- With ``prewarm`` (default) each browser keeps one spare, never-used context with a blank tab,
  opened in the background, so a reset does not wait for a context to open.
- Egress is closed for every protocol: each context's HTTP requests outside its policy are
  aborted inside the browser, and every other connection (WebSocket, WebRTC over TCP,
  preconnects) goes to the context's own refusing proxy (:mod:`._browser_egress`); WebRTC never
  uses UDP. Both count on the session's :class:`NetworkPolicy`.
- :func:`browser_processes` counts the Chromium processes this process launched, by type.
- :func:`shared_pool` hands out one refcounted pool per event loop, so envs stepped by the same
  engine share browsers and the last env to close shuts them down.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import uuid
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentgym.sandbox import SandboxUnavailable

from ._browser_egress import EGRESS_SWITCHES, EgressGate
from ._browser_process import (
    _LAUNCHED_PIDS,
    MARKER,
    BrowserHandle,
    browser_pid,
    browser_processes,
    kill_tree,
)
from ._browser_url import SPECIAL_PORTS, ParsedURL, URLError, parse_url
from .browser_session import (
    BrowserCrashed,
    BrowserSession,
    NetworkPolicy,
    PolicyChanged,
    origin_of,
)

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page, Playwright

logger = logging.getLogger(__name__)

CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "chromium")
HEADLESS_SHELL_CANDIDATES = ("/usr/lib/chromium/chromium-headless-shell",
                             "chromium-headless-shell")
"""Chromium's headless shell (Debian's ``chromium-headless-shell``, what Playwright itself runs
for headless browsers): the same engine without the browser UI, a third faster to open a tab and
load a page here. Headless pools prefer it; Chromium is the fallback."""
_BrowserHandle = BrowserHandle  # the old private name


def find_chromium(headless: bool = False) -> str | None:
    """Path of the Chromium binary to launch, or None when none is installed.

    ``$AGENTGYM_CHROMIUM`` wins; otherwise a ``headless`` browser is the headless shell where
    it is installed, and every other case the full Chromium.
    """
    override = os.environ.get("AGENTGYM_CHROMIUM")
    candidates = ((override,) if override
                  else (HEADLESS_SHELL_CANDIDATES if headless else ()) + CHROMIUM_CANDIDATES)
    for candidate in candidates:
        path = candidate if os.path.isabs(candidate) else shutil.which(candidate)
        if path and os.access(path, os.X_OK):
            return path
    return None


def chromium_available() -> bool:
    """Whether Chromium and the Playwright package are both installed."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return False
    return find_chromium() is not None


@dataclass(frozen=True)
class BrowserConfig:
    """How the pool launches browsers and bounds their calls."""

    max_browsers: int = 2
    """Most Chromium processes alive at once in one pool."""
    contexts_per_browser: int = 8
    """Most concurrent episodes (contexts) per process."""
    headless: bool = True
    viewport: tuple[int, int] = (1280, 720)
    """Page size in CSS pixels (WebArena's 1280x720)."""
    timeout_s: float = 30.0
    """Limit of one browser call; past it the browser is probed and killed if hung."""
    launch_timeout_s: float = 30.0
    executable: str | None = None
    """Chromium binary; default :func:`find_chromium`."""
    prewarm: bool = True
    """Keep one unused context with a blank tab open per browser, so a reset takes it at once
    (it is still fresh: no episode has used it); a new spare is opened in the background."""


@dataclass
class _Slot:
    """A context opened for a session: its first tab, its refusing proxy and bypass rules."""

    context: BrowserContext
    page: Page | None
    gate: EgressGate
    bypass: str

    async def aclose(self, timeout_s: float) -> None:
        """Close the context and stop its proxy (never raises)."""
        await _quiet_close(self.context, timeout_s)
        await self.gate.aclose()


class BrowserPool:
    """A bounded pool of Chromium processes on the current event loop. See the module docs."""

    name = "browser"

    def __init__(self, config: BrowserConfig | None = None, **overrides: Any) -> None:
        base = config or BrowserConfig()
        self.config = BrowserConfig(**{**base.__dict__, **overrides}) if overrides else base
        self.executable = self.config.executable or find_chromium(self.config.headless)
        if self.executable is None:
            raise SandboxUnavailable("Chromium not found: install the 'chromium' package")
        self._pw: Playwright | None = None
        self.browsers: list[BrowserHandle] = []
        self._cond: asyncio.Condition | None = None
        self._launching = 0
        self._spares: dict[BrowserHandle, asyncio.Task[_Slot]] = {}
        self.launched = 0
        """Browsers launched so far (replacements included)."""
        self.closed = False
        self._driver_pids: set[int] = set()

    # -- lifecycle -----------------------------------------------------------------------

    async def _playwright(self) -> Playwright:
        if self._pw is None:
            try:
                from playwright.async_api import async_playwright
            except ImportError as e:
                from agentgym.errors import missing_extra

                raise missing_extra("playwright", "web") from e
            before = _driver_pids()
            self._pw = await async_playwright().start()
            self._driver_pids = _driver_pids() - before  # killed if the loop ends unclosed
        return self._pw

    async def _launch(self) -> BrowserHandle:
        pw = await self._playwright()
        marker = MARKER + uuid.uuid4().hex[:12]
        width, height = self.config.viewport
        args = [marker, "--no-first-run", "--disable-extensions", "--disable-sync",
                "--disable-background-networking", "--disable-dev-shm-usage",
                "--disable-component-update", "--no-default-browser-check",
                "--disable-features=Translate,MediaRouter,OptimizationHints",
                *EGRESS_SWITCHES, f"--window-size={width},{height}"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")
        try:
            browser = await asyncio.wait_for(
                pw.chromium.launch(executable_path=self.executable,
                                   headless=self.config.headless, args=args),
                self.config.launch_timeout_s)
        except Exception as e:
            raise BrowserCrashed(f"cannot launch Chromium ({self.executable}): {e}") from e
        pid = await asyncio.to_thread(browser_pid, marker)
        if pid is not None:
            _LAUNCHED_PIDS.add(pid)
        self.launched += 1
        logger.debug("launched Chromium pid %s", pid)
        return BrowserHandle(browser, pid)

    async def new_session(self, policy: NetworkPolicy | None = None) -> BrowserSession:
        """A fresh incognito context with one blank tab; waits while the pool is full.

        Only the choice of a slot is serialised; launching a browser and opening the context
        happen outside the pool's lock, so concurrent resets overlap.
        """
        if self.closed:
            raise BrowserCrashed("the browser pool is closed")
        if self._cond is None:
            self._cond = asyncio.Condition()
        cond, cap = self._cond, self.config.contexts_per_browser
        handle: BrowserHandle | None = None
        async with cond:
            while True:
                self._reap()
                free = [h for h in self.browsers if len(h.sessions) + h.pending < cap]
                if free:
                    handle = min(free, key=lambda h: len(h.sessions) + h.pending)
                    handle.pending += 1
                    break
                if len(self.browsers) + self._launching < self.config.max_browsers:
                    self._launching += 1
                    break
                await cond.wait()
        if handle is None:
            try:
                handle = await self._launch()
            finally:
                async with cond:
                    self._launching -= 1
                    cond.notify_all()
            async with cond:
                handle.pending += 1
                self.browsers.append(handle)
        policy = policy or NetworkPolicy()
        bypass = policy.bypass_rules()
        try:
            slot = await self._take_context(handle, bypass)
        finally:
            handle.pending -= 1
        session = BrowserSession(handle, slot.context, policy, self.config.timeout_s,
                                 self._release, gate=slot.gate, bypass=bypass)
        handle.sessions.add(session)
        try:
            await session._start(slot.page)
        except BaseException:
            await session.aclose()
            raise
        return session

    async def _take_context(self, handle: BrowserHandle, bypass: str) -> _Slot:
        """The browser's pre-opened spare context and blank tab when it was made for the same
        allowed hosts (``bypass``), else a fresh context; then start opening the next spare, for
        the same hosts, in the background."""
        spare = self._spares.pop(handle, None)
        slot: _Slot | None = None
        if spare is not None:
            try:
                slot = await spare
            except Exception as e:  # a failed spare is replaced by a fresh context below
                logger.debug("spare context failed: %s", e)
            if slot is not None and slot.bypass != bypass:  # made for other origins
                await slot.aclose(self.config.timeout_s)
                slot = None
        if slot is None:
            slot = await self._new_context(handle, bypass)
        if self.config.prewarm and not handle.dead and not self.closed \
                and handle not in self._spares:  # one spare per browser, never overwritten
            self._spares[handle] = asyncio.get_running_loop().create_task(
                self._spare(handle, bypass))
        return slot

    async def _spare(self, handle: BrowserHandle, bypass: str) -> _Slot:
        slot = await self._new_context(handle, bypass)
        try:
            slot.page = await asyncio.wait_for(slot.context.new_page(), self.config.timeout_s)
        except BaseException:
            await slot.aclose(self.config.timeout_s)
            raise
        return slot

    async def _drop_spare(self, handle: BrowserHandle) -> None:
        spare = self._spares.pop(handle, None)
        if spare is None:
            return
        if not spare.done():
            spare.cancel()
        try:
            slot = await spare
        except BaseException:  # cancelled or failed: nothing was opened to close
            return
        await slot.aclose(self.config.timeout_s)

    async def _new_context(self, handle: BrowserHandle, bypass: str) -> _Slot:
        """A fresh incognito context whose proxy is a new :class:`EgressGate`; only the
        ``bypass`` hosts and ports connect directly."""
        width, height = self.config.viewport
        gate = await EgressGate(lambda _target: None).start()
        proxy = {"server": gate.proxy_server, **({"bypass": bypass} if bypass else {})}
        try:
            context = await asyncio.wait_for(handle.browser.new_context(
                viewport={"width": width, "height": height}, service_workers="block",
                accept_downloads=False, proxy=proxy),  # type: ignore[arg-type]
                self.config.timeout_s)
        except BaseException as e:
            await gate.aclose()
            if not isinstance(e, Exception):
                raise
            if isinstance(e, TimeoutError) and await handle.responsive():
                raise  # slow, not dead: the caller's episode fails, the browser stays
            await handle.kill(f"new_context failed: {e!r}")
            raise BrowserCrashed(f"browser {handle.pid} cannot open a context: {e!r}") from e
        return _Slot(context, None, gate, bypass)

    def _reap(self) -> None:
        for handle in [h for h in self.browsers if h.dead]:
            self.browsers.remove(handle)
            spare = self._spares.pop(handle, None)
            if spare is not None and not spare.done():
                spare.cancel()
            elif spare is not None and not spare.cancelled() and spare.exception() is None:
                gate = spare.result().gate  # the context died with its browser; its proxy not
                asyncio.get_running_loop().create_task(gate.aclose())
            if handle.pid is not None:
                kill_tree(handle.pid)

    def _release(self, session: BrowserSession) -> None:
        session.handle.sessions.discard(session)
        if self._cond is not None:
            asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        if self._cond is not None:
            async with self._cond:
                self._cond.notify_all()

    def free_slots(self) -> int:
        """Sessions that could open now without waiting (browsers not yet launched count)."""
        used = sum(len(h.sessions) + h.pending for h in self.browsers if not h.dead)
        total = self.config.max_browsers * self.config.contexts_per_browser
        return max(0, total - used - self._launching)

    async def live_contexts(self) -> int:
        """Open contexts over every browser, spares left out (what a leak test counts)."""
        spares = set()
        for task in list(self._spares.values()):
            try:
                spares.add((await asyncio.shield(task)).context)
            except BaseException:  # a failed or cancelled spare holds no context
                continue
        return sum(1 for h in self.browsers if not h.dead for c in h.browser.contexts
                   if c not in spares)

    def pids(self) -> list[int]:
        """Pids of every live browser process and its children."""
        return [pid for h in self.browsers for pid in h.descendants()]

    def abandon(self) -> None:
        """Kill every browser of a pool whose event loop has ended (its objects can no longer
        be awaited): the processes go, the pool is closed. Never raises."""
        self.closed = True
        for handle in self.browsers:
            handle.closing = True
            if handle.pid is not None:
                kill_tree(handle.pid)
        self.browsers.clear()
        self._pw = None
        for pid in self._driver_pids:  # the driver outlives the loop that started it
            kill_tree(pid)
        self._driver_pids = set()

    async def aclose(self) -> None:
        """Close every browser and stop Playwright (never raises)."""
        self.closed = True
        for handle in self.browsers:
            handle.closing = True
            await self._drop_spare(handle)
            for session in list(handle.sessions):
                await session.aclose()
            try:
                if not handle.dead:
                    await asyncio.wait_for(handle.browser.close(), 10.0)
            except Exception as e:  # a hung browser is killed below
                logger.debug("closing browser %s failed: %s", handle.pid, e)
            if handle.pid is not None:
                await asyncio.to_thread(kill_tree, handle.pid)
        self.browsers.clear()
        if self._pw is not None:
            try:
                await asyncio.wait_for(self._pw.stop(), 10.0)
            except Exception as e:  # the driver may already be gone
                logger.debug("stopping Playwright failed: %s", e)
            self._pw = None

    async def __aenter__(self) -> BrowserPool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def _quiet_close(context: Any, timeout_s: float = 30.0) -> None:
    try:
        await asyncio.wait_for(context.close(), timeout_s)
    except Exception as e:  # a dead browser cannot close it; it is gone with the process
        logger.debug("closing a spare context failed: %s", e)


def _driver_pids() -> set[int]:
    """Pids of this process's Playwright driver children."""
    import psutil

    out = set()
    for child in psutil.Process().children():
        try:
            if "run-driver" in child.cmdline():
                out.add(child.pid)
        except psutil.Error:
            continue
    return out


_SHARED: dict[tuple[int, BrowserConfig], tuple[BrowserPool, int]] = {}
_POOL_LOOPS: weakref.WeakKeyDictionary[BrowserPool, asyncio.AbstractEventLoop] = \
    weakref.WeakKeyDictionary()
"""The loop each shared pool was made on: a loop id can be reused by a later loop once the
first is gone, and a pool of an ended loop must never be handed out again."""


async def shared_pool(config: BrowserConfig | None = None) -> BrowserPool:
    """The pool of the running loop for ``config`` (created on first use); pair with
    :func:`release_pool`."""
    config = config or BrowserConfig()
    loop = asyncio.get_running_loop()
    key = (id(loop), config)
    pool, refs = _SHARED.get(key, (None, 0))
    if pool is not None and _POOL_LOOPS.get(pool) is not loop:  # an ended loop's, same id
        pool.abandon()
        pool = None
    if pool is None or pool.closed:
        pool, refs = BrowserPool(config), 0
        _POOL_LOOPS[pool] = loop
    _SHARED[key] = (pool, refs + 1)
    return pool


def forget_pool(pool: BrowserPool) -> None:
    """Drop a shared pool whose event loop has ended and kill its browsers (see
    :meth:`BrowserPool.abandon`); its other users find it closed."""
    for key, (known, _refs) in list(_SHARED.items()):
        if known is pool:
            del _SHARED[key]
    pool.abandon()


async def release_pool(pool: BrowserPool) -> None:
    """Drop one reference to a shared pool; the last one closes it."""
    for key, (known, refs) in list(_SHARED.items()):
        if known is pool:
            if refs <= 1:
                del _SHARED[key]
                await pool.aclose()
            else:
                _SHARED[key] = (pool, refs - 1)
            return
    await pool.aclose()


__all__ = [
    "BrowserConfig",
    "BrowserCrashed",
    "BrowserPool",
    "BrowserSession",
    "MARKER",
    "NetworkPolicy",
    "ParsedURL",
    "PolicyChanged",
    "SPECIAL_PORTS",
    "URLError",
    "browser_processes",
    "chromium_available",
    "find_chromium",
    "forget_pool",
    "kill_tree",
    "origin_of",
    "parse_url",
    "release_pool",
    "shared_pool",
]
