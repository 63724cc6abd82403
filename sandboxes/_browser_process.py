"""Chromium processes: one launched browser's handle, killing a process tree, counting processes.

A :class:`BrowserHandle` is what the pool keeps per Chromium process (its Playwright ``Browser``,
pid, live sessions, death state, liveness probe). Sessions hold a reference to their handle; this
module imports neither the pool nor the session, so the two depend on it and not on each other.

:func:`browser_processes` counts the processes of the browsers this process launched, by type
(``browser``, ``renderer``, ``zygote``, ``gpu-process``, ``utility``...): what a soak samples to
see whether long runs leave processes behind.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.async_api import Browser, CDPSession

logger = logging.getLogger(__name__)

MARKER = "--agentgym-browser="
"""A no-op switch carrying the browser's id, used to find (and kill) its process."""
_LAUNCHED_PIDS: set[int] = set()


def browser_pid(marker: str) -> int | None:
    """Pid of the main Chromium process launched with the switch ``marker``."""
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


def browser_processes(root_pid: int | None = None) -> Counter[str]:
    """Live Chromium processes launched by the pools of this process, counted by type.

    Every process whose command line carries the pool's :data:`MARKER` switch (a browser) or
    descends from one (its renderers, zygotes, GPU and utility processes), under ``root_pid``
    (default: this process). Types are Chromium's ``--type=`` switch, ``browser`` for the main
    process, ``utility:<sub-type>`` for utility processes and ``other`` for a descendant with no
    type (a helper, or a process a zygote is forking); zombies count as ``zombie``.
    ``sum(browser_processes().values())`` is the figure a soak samples.
    """
    import psutil

    try:
        children = psutil.Process(root_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return Counter()
    counts: Counter[str] = Counter()
    for main in children:
        try:
            cmd = main.cmdline()
            if not any(a.startswith(MARKER) for a in cmd) or \
                    any(a.startswith("--type=") for a in cmd):
                continue
            tree = [main, *main.children(recursive=True)]
        except psutil.Error:
            continue
        for proc in tree:
            try:
                cmd = proc.cmdline()
                zombie = proc.status() == psutil.STATUS_ZOMBIE
            except psutil.Error:
                continue
            # the main process is the browser; a descendant without --type= is a helper, or a
            # child a zygote has just forked that has no command line yet (never a browser)
            untyped = "browser" if proc is main else "other"
            kind = next((a.split("=", 1)[1] for a in cmd if a.startswith("--type=")), untyped)
            if kind == "utility":
                kind += ":" + next((a.split("=", 1)[1] for a in cmd
                                    if a.startswith("--utility-sub-type=")), "")
            counts["zombie" if zombie else kind] += 1
    return counts


class BrowserHandle:
    """One Chromium process: its Playwright handle, pid and live sessions."""

    def __init__(self, browser: Browser, pid: int | None) -> None:
        self.browser = browser
        self.pid = pid
        self.sessions: set[Any] = set()
        """The :class:`~agentgym.sandboxes.browser.BrowserSession` objects open on it."""
        self.dead = False
        self.dead_reason = ""
        self.closing = False
        self.pending = 0
        """Contexts being opened (slots reserved, not yet sessions)."""
        self._cdp_session: CDPSession | None = None
        """The browser-level CDP session (:meth:`browser_cdp`, the liveness probe)."""
        browser.on("disconnected", lambda _b: self._mark_dead("disconnected"))

    def _mark_dead(self, reason: str) -> None:
        if not self.dead:
            self.dead, self.dead_reason = True, reason
            if self.closing or not threading.main_thread().is_alive():
                # closed on purpose, or the program is exiting (an env left open: its browser
                # goes down with the process, which is no news to print at exit)
                logger.debug("browser %s is gone: %s", self.pid, reason)
            else:
                logger.warning("browser %s is dead: %s", self.pid, reason)

    async def responsive(self, timeout_s: float = 10.0, tries: int = 2) -> bool:
        """A liveness probe: the browser answers ``Browser.getVersion`` within ``timeout_s`` in
        one of ``tries`` attempts (a CPU-starved browser is slow, not hung)."""
        for _ in range(tries):
            if self.dead:
                return False
            try:
                await self.browser_cdp("Browser.getVersion", timeout_s=timeout_s)
                return True
            except TimeoutError:
                continue
            except Exception:  # the connection is gone: the browser cannot be used
                return False
        return False

    async def browser_cdp(self, method: str, params: dict[str, Any] | None = None, *,
                          timeout_s: float = 10.0) -> dict[str, Any]:
        """Send a browser-level CDP command (``Target.*``, ``Browser.*``), each step bounded
        by ``timeout_s``; one browser session serves this and the liveness probe."""
        if self._cdp_session is None:
            self._cdp_session = await asyncio.wait_for(self.browser.new_browser_cdp_session(),
                                                 timeout_s)
        return dict(await asyncio.wait_for(self._cdp_session.send(method, params or {}), timeout_s))

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


__all__ = ["MARKER", "BrowserHandle", "browser_pid", "browser_processes", "kill_tree"]
