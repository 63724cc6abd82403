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
- :func:`shared_pool` hands out one refcounted pool per event loop, so envs stepped by the same
  engine share browsers and the last env to close shuts them down.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import shutil
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentgym.sandbox import SandboxUnavailable

from .browser_session import BrowserCrashed, BrowserSession, NetworkPolicy, origin_of

if TYPE_CHECKING:
    from playwright.async_api import Browser, CDPSession, Playwright

logger = logging.getLogger(__name__)

CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "chromium")
HEADLESS_SHELL_CANDIDATES = ("/usr/lib/chromium/chromium-headless-shell",
                             "chromium-headless-shell")
"""Chromium's headless shell (Debian's ``chromium-headless-shell``, what Playwright itself runs
for headless browsers): the same engine without the browser UI, a third faster to open a tab and
load a page here. Headless pools prefer it; Chromium is the fallback."""
MARKER = "--agentgym-browser="
"""A no-op switch carrying the browser's id, used to find (and kill) its process."""
_LAUNCHED_PIDS: set[int] = set()


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


def _browser_pid(marker: str) -> int | None:
    import psutil

    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if marker in cmd and not any(a.startswith("--type=") for a in cmd):
            return int(proc.pid)
    return None


def kill_tree(pid: int) -> None:
    """Kill ``pid`` and all its descendants (missing processes are ignored)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [*root.children(recursive=True), root]
    except psutil.NoSuchProcess:
        return
    for proc in procs:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(procs, timeout=3)
    _LAUNCHED_PIDS.discard(pid)


@atexit.register
def _kill_leftovers() -> None:
    for pid in list(_LAUNCHED_PIDS):
        kill_tree(pid)


class _BrowserHandle:
    """One Chromium process: its Playwright handle, pid and live contexts."""

    def __init__(self, browser: Browser, pid: int | None) -> None:
        self.browser = browser
        self.pid = pid
        self.sessions: set[BrowserSession] = set()
        self.dead = False
        self.dead_reason = ""
        self.closing = False
        self.pending = 0
        """Contexts being opened (slots reserved, not yet sessions)."""
        self._probe: CDPSession | None = None
        browser.on("disconnected", lambda _b: self._mark_dead("disconnected"))

    def _mark_dead(self, reason: str) -> None:
        if not self.dead:
            self.dead, self.dead_reason = True, reason
            if not self.closing:
                logger.warning("browser %s is dead: %s", self.pid, reason)

    async def responsive(self, timeout_s: float = 10.0, tries: int = 2) -> bool:
        """A liveness probe: the browser answers ``Browser.getVersion`` within ``timeout_s`` in
        one of ``tries`` attempts (a CPU-starved browser is slow, not hung)."""
        for _ in range(tries):
            if self.dead:
                return False
            try:
                if self._probe is None:
                    self._probe = await asyncio.wait_for(
                        self.browser.new_browser_cdp_session(), timeout_s)
                await asyncio.wait_for(self._probe.send("Browser.getVersion"), timeout_s)
                return True
            except TimeoutError:
                continue
            except Exception:  # the connection is gone: the browser cannot be used
                return False
        return False

    async def kill(self, reason: str) -> None:
        """Mark dead and kill the process tree."""
        self._mark_dead(reason)
        if self.pid is not None:
            await asyncio.to_thread(kill_tree, self.pid)

    def descendants(self) -> list[int]:
        """Pids of the browser process and its children (empty once it is gone)."""
        import psutil

        if self.pid is None:
            return []
        try:
            root = psutil.Process(self.pid)
            return [self.pid, *(p.pid for p in root.children(recursive=True))]
        except psutil.NoSuchProcess:
            return []


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
        self.browsers: list[_BrowserHandle] = []
        self._cond: asyncio.Condition | None = None
        self._launching = 0
        self._spares: dict[_BrowserHandle, asyncio.Task[tuple[Any, Any]]] = {}
        self.launched = 0
        """Browsers launched so far (replacements included)."""
        self.closed = False

    # -- lifecycle -----------------------------------------------------------------------

    async def _playwright(self) -> Playwright:
        if self._pw is None:
            try:
                from playwright.async_api import async_playwright
            except ImportError as e:
                from agentgym.errors import missing_extra

                raise missing_extra("playwright", "web") from e
            self._pw = await async_playwright().start()
        return self._pw

    async def _launch(self) -> _BrowserHandle:
        pw = await self._playwright()
        marker = MARKER + uuid.uuid4().hex[:12]
        width, height = self.config.viewport
        args = [marker, "--no-first-run", "--disable-extensions", "--disable-sync",
                "--disable-background-networking", "--disable-dev-shm-usage",
                "--disable-component-update", "--no-default-browser-check",
                "--disable-features=Translate,MediaRouter,OptimizationHints",
                f"--window-size={width},{height}"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")
        try:
            browser = await asyncio.wait_for(
                pw.chromium.launch(executable_path=self.executable,
                                   headless=self.config.headless, args=args),
                self.config.launch_timeout_s)
        except Exception as e:
            raise BrowserCrashed(f"cannot launch Chromium ({self.executable}): {e}") from e
        pid = await asyncio.to_thread(_browser_pid, marker)
        if pid is not None:
            _LAUNCHED_PIDS.add(pid)
        self.launched += 1
        logger.debug("launched Chromium pid %s", pid)
        return _BrowserHandle(browser, pid)

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
        handle: _BrowserHandle | None = None
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
        try:
            context, page = await self._take_context(handle)
        finally:
            handle.pending -= 1
        session = BrowserSession(handle, context, policy or NetworkPolicy(),
                                 self.config.timeout_s, self._release)
        handle.sessions.add(session)
        try:
            await session._start(page)
        except BaseException:
            await session.aclose()
            raise
        return session

    async def _take_context(self, handle: _BrowserHandle) -> tuple[Any, Any]:
        """The browser's pre-opened spare context and blank tab, else fresh ones; then start
        opening the next spare in the background."""
        spare = self._spares.pop(handle, None)
        context = page = None
        if spare is not None:
            try:
                context, page = await spare
            except Exception as e:  # a failed spare is replaced by a fresh context below
                logger.debug("spare context failed: %s", e)
        if context is None:
            context = await self._new_context(handle)
        if self.config.prewarm and not handle.dead and not self.closed \
                and handle not in self._spares:  # one spare per browser, never overwritten
            self._spares[handle] = asyncio.get_running_loop().create_task(self._spare(handle))
        return context, page

    async def _spare(self, handle: _BrowserHandle) -> tuple[Any, Any]:
        context = await self._new_context(handle)
        try:
            page = await asyncio.wait_for(context.new_page(), self.config.timeout_s)
        except BaseException:
            await _quiet_close(context, self.config.timeout_s)
            raise
        return context, page

    async def _drop_spare(self, handle: _BrowserHandle) -> None:
        spare = self._spares.pop(handle, None)
        if spare is None:
            return
        if not spare.done():
            spare.cancel()
        try:
            context, _ = await spare
        except BaseException:  # cancelled or failed: nothing was opened to close
            return
        await _quiet_close(context, self.config.timeout_s)

    async def _new_context(self, handle: _BrowserHandle) -> Any:
        width, height = self.config.viewport
        try:
            return await asyncio.wait_for(handle.browser.new_context(
                viewport={"width": width, "height": height}, service_workers="block",
                accept_downloads=False), self.config.timeout_s)
        except Exception as e:
            if isinstance(e, TimeoutError) and await handle.responsive():
                raise  # slow, not dead: the caller's episode fails, the browser stays
            await handle.kill(f"new_context failed: {e!r}")
            raise BrowserCrashed(f"browser {handle.pid} cannot open a context: {e!r}") from e

    def _reap(self) -> None:
        for handle in [h for h in self.browsers if h.dead]:
            self.browsers.remove(handle)
            spare = self._spares.pop(handle, None)
            if spare is not None and not spare.done():
                spare.cancel()
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
                spares.add((await asyncio.shield(task))[0])
            except BaseException:  # a failed or cancelled spare holds no context
                continue
        return sum(1 for h in self.browsers if not h.dead for c in h.browser.contexts
                   if c not in spares)

    def pids(self) -> list[int]:
        """Pids of every live browser process and its children."""
        return [pid for h in self.browsers for pid in h.descendants()]

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


_SHARED: dict[tuple[int, BrowserConfig], tuple[BrowserPool, int]] = {}


async def shared_pool(config: BrowserConfig | None = None) -> BrowserPool:
    """The pool of the running loop for ``config`` (created on first use); pair with
    :func:`release_pool`."""
    config = config or BrowserConfig()
    key = (id(asyncio.get_running_loop()), config)
    pool, refs = _SHARED.get(key, (None, 0))
    if pool is None or pool.closed:
        pool, refs = BrowserPool(config), 0
    _SHARED[key] = (pool, refs + 1)
    return pool


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
    "NetworkPolicy",
    "chromium_available",
    "find_chromium",
    "kill_tree",
    "origin_of",
    "release_pool",
    "shared_pool",
]
