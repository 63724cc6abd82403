"""The shared base of web envs: a browser session per episode, observations, actions, scoring.

A web env subclasses :class:`WebEnv` and implements three coroutines::

    class MyEnv(WebEnv):
        def allowed_origins(self):                 # what the episode's browser may reach
            return ["http://127.0.0.1:8000"]
        async def setup_episode(self, options):   # open the start page; return (goal, info)
            await self.session.page.goto("http://127.0.0.1:8000/")
            return "Buy the cheapest pen.", {"task_id": "t1"}
        async def evaluate(self, action):          # after each action: (reward, done, info)
            done = action.name == "stop"
            return (1.0 if done and action.text == "42" else 0.0), done, {}

Everything else is shared: the episode's fresh browser context from the loop's
:func:`~agentgym.sandboxes.browser.shared_pool` (closed on the next reset or on close), the
observation (accessibility tree, URL, tabs, last error, optional screenshot and pruned HTML), the
action parser (WebArena, BrowserGym and tool-call syntax) and the error handling: a malformed or
impossible action becomes ``Error: ...`` in the next observation, a ``javascript:``/``file:`` URL
or a host outside :meth:`allowed_origins` is refused, and a dead browser raises
:class:`~agentgym.sandboxes.browser.BrowserCrashed` so the engine records the episode as aborted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

from agentgym.env import AgentEnv, Observation, StepResult
from agentgym.errors import ResetNeeded
from agentgym.sandboxes.browser import (
    BrowserConfig,
    BrowserCrashed,
    BrowserPool,
    BrowserSession,
    NetworkPolicy,
    forget_pool,
    release_pool,
    shared_pool,
)

from .actions import ActionParseError, WebAction, parse_action, web_tools
from .executor import ActionFailed, execute
from .navigation import NavigationWatch
from .observation import AXTree, ElementIds, document_key, prune_html, render_ax_tree, render_tabs
from .prefetch import Prefetcher

logger = logging.getLogger(__name__)
T = TypeVar("T")

INSTRUCTIONS = """You are a web agent. Each turn you see the page's accessibility tree, where \
every element has an id in brackets, and you answer with exactly one action:
click [id] | hover [id] | type [id] [text] [0|1] (1 presses Enter after typing) | \
select [id] [option] | press [keys] | scroll [up|down] | goto [url] | go_back | go_forward | \
new_tab | tab_focus [index] | close_tab | mouse_click [x] [y] | stop [answer]
End your reply with the action in a code block, for example: ```click [12]```"""


class WebEnv(AgentEnv):
    """Base class of browser envs; see the module docstring for the three methods to write."""

    instructions = INSTRUCTIONS

    def __init__(
        self,
        *,
        screenshot: bool = False,
        screenshot_format: str = "png",
        screenshot_clip: tuple[int, int, int, int] | None = None,
        html: bool = False,
        axtree: bool = True,
        viewport_only: bool = False,
        max_tree_lines: int = 1500,
        browser: BrowserConfig | None = None,
        navigation_grace_s: float = 0.1,
        prefetch: bool = True,
        reuse_context: bool = True,
    ) -> None:
        super().__init__()
        self.tools = web_tools()
        self.screenshot = screenshot
        """Add a screenshot of the active tab to every observation."""
        self.screenshot_format = screenshot_format
        """``png`` or ``jpeg``."""
        self.screenshot_clip = screenshot_clip
        """``(x, y, width, height)`` to capture, or the whole viewport."""
        self.html = html
        """Add the pruned HTML of the page."""
        self.axtree = axtree
        """Add the accessibility tree (the default text observation)."""
        self.viewport_only = viewport_only
        """Keep only tree nodes whose box intersects the viewport."""
        self.max_tree_lines = max_tree_lines
        self.browser_config = browser or BrowserConfig()
        self.navigation_grace_s = navigation_grace_s
        """After a click or Enter, how long to wait for a page load that starts late (one that
        starts during the action is always awaited); 0 for single-page tasks."""
        self.navigation: NavigationWatch | None = None
        self.prefetch = prefetch
        """Open (and :meth:`prepare_session`) the next episode's browser context in the
        background after each reset, when the pool has a free slot."""
        self.prefetcher = Prefetcher()
        self.reuse_context = reuse_context
        """Clear the episode's browser context for the next episode (a new tab; cookies, cache
        and the sites' storage cleared: :meth:`~agentgym.sandboxes.browser.BrowserSession.
        recycle`) instead of opening a fresh one, so a reset costs a page load, not a new
        context and a cold renderer. False: a fresh context per episode (prefetched)."""
        self._background_tasks: set[asyncio.Task[Any]] = set()
        self.pool: BrowserPool | None = None
        self.session: BrowserSession | None = None
        self.tree = AXTree("")
        self.element_ids = ElementIds()
        """Shown element ids per document (tree order, stable while the page lives)."""
        self.goal = ""
        self.answer: str | None = None
        self.done = True
        self.steps = 0
        self.last_error = ""
        self.home_loop: asyncio.AbstractEventLoop | None = None
        """The loop the browser session lives on (set by reset)."""

    # -- for subclasses ----------------------------------------------------------------------

    def allowed_origins(self) -> list[str]:
        """Origins this episode's browser may reach (``http://127.0.0.1:8000``)."""
        return []

    async def setup_episode(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Open the start page in :attr:`session`; return the goal text and the reset info."""
        raise NotImplementedError

    async def evaluate(self, action: WebAction) -> tuple[float, bool, dict[str, Any]]:
        """Score the page after ``action``: ``(reward, terminated, info)``."""
        raise NotImplementedError

    async def prepare_session(self, session: BrowserSession) -> None:
        """Optional: load what any episode starts from into a fresh session opened in the
        background (a task page before its seed, a site's origin), so the reset is quicker.
        :meth:`setup_episode` must still work on a session this did not prepare."""

    # -- observation -------------------------------------------------------------------------

    async def _bounds(self) -> dict[int, tuple[float, float, float, float]]:
        assert self.session is not None  # noqa: S101 -- set by reset
        snap = await self.session.cdp("DOMSnapshot.captureSnapshot", {
            "computedStyles": [], "includeDOMRects": False})
        bounds: dict[int, tuple[float, float, float, float]] = {}
        scroll_y = 0.0
        for doc in snap.get("documents", ())[:1]:
            scroll_y = float(doc.get("scrollOffsetY", 0.0))
            backend = doc["nodes"]["backendNodeId"]
            layout = doc["layout"]
            for index, rect in zip(layout["nodeIndex"], layout["bounds"], strict=False):
                x, y, w, h = rect
                bounds[backend[index]] = (x, y - scroll_y, w, h)
        return bounds

    @staticmethod
    async def _soft(awaitable: Awaitable[T], default: T) -> T:
        """Await a part of the observation; a page in flux gives ``default``, a dead browser
        still raises."""
        try:
            return await awaitable
        except BrowserCrashed:
            raise
        except Exception as e:  # a navigating or closing page: show what can be shown
            logger.debug("observation part failed: %s", e)
            return default

    async def observe(self) -> Observation:
        """The current observation (and refresh :attr:`tree`, whose ids actions may use)."""
        session = self.session
        if session is None:
            raise ResetNeeded("call reset() first")
        page = session.page
        if self.navigation is not None:
            await self.navigation.wait_loaded(self.browser_config.timeout_s)
        parts: list[str] = []
        if self.steps == 0 and self.goal:
            parts.append(f"Task: {self.goal}")
        parts.append(f"URL: {page.url}")
        if len(session.pages) > 1:  # titles cost a round trip each: only for the tab list
            titles = [await self._soft(session.guard(p.title()), "") for p in session.pages]
            parts.append("Tabs:\n" + render_tabs(titles, session.active))
        if self.last_error:
            parts.append(f"Error: {self.last_error}")
        if self.axtree:
            ax = await self._soft(session.cdp("Accessibility.getFullAXTree"), {"nodes": []})
            nodes = ax.get("nodes", [])
            if len(nodes) <= 1 and page.url != "about:blank":  # caught between commit and parse
                await self._soft(session.guard(page.wait_for_load_state("load")), None)
                ax = await self._soft(session.cdp("Accessibility.getFullAXTree"), {"nodes": []})
                nodes = ax.get("nodes", [])
            bounds = await self._soft(self._bounds(), None) if self.viewport_only else None
            self.element_ids.enter((id(page), document_key(nodes)))
            self.tree = render_ax_tree(nodes, bounds=bounds, viewport=self.browser_config.viewport,
                                       max_lines=self.max_tree_lines,
                                       number=self.element_ids.number)
            parts.append("Accessibility tree:\n" + self.tree.text)
        if self.html:
            parts.append("HTML:\n" + prune_html(await self._soft(session.guard(page.content()),
                                                                "")))
        images: tuple[bytes, ...] = ()
        if self.screenshot:
            kwargs: dict[str, Any] = {"type": self.screenshot_format}
            if self.screenshot_format == "jpeg":
                kwargs["quality"] = 80
            if self.screenshot_clip:
                x, y, w, h = self.screenshot_clip
                kwargs["clip"] = {"x": x, "y": y, "width": w, "height": h}
            shot = await self._soft(session.guard(page.screenshot(**kwargs)), b"")
            images = (shot,) if shot else ()
        return {"text": "\n\n".join(parts), "images": images}

    def element_id(self, backend_node_id: int) -> int:
        """The id an action uses for Chromium's backend node ``backend_node_id`` on the current
        page (for experts that find elements through CDP); numbered now if not yet shown."""
        return self.element_ids.number(int(backend_node_id))

    # -- episode loop ------------------------------------------------------------------------

    def forget_ended_loop(self) -> None:
        """Drop the browser state of the loop the last reset ran on, which has ended (a
        synchronous ``Engine.run`` runs each call on a new loop, the env lives on): its session,
        tab prefetch and pool cannot be awaited here, so the pool's browsers are killed and this
        reset opens a fresh session on the running loop. Subclasses drop their own loop-bound
        objects too."""
        logger.debug("the loop of the last reset has ended: a fresh browser on this one")
        if self.navigation is not None:
            try:
                self.navigation.close()
            except Exception as e:  # listeners of a context whose loop is gone
                logger.debug("closing the navigation watch failed: %s", e)
            self.navigation = None
        self.session = None
        self.prefetcher = Prefetcher()
        self._background_tasks = set()
        if self.pool is not None:
            pool, self.pool = self.pool, None
            forget_pool(pool)

    async def _close_session(self, wait: bool = True) -> None:
        if self.session is not None:
            session, self.session = self.session, None
            if wait:
                await session.aclose()
            else:
                self._background(session.aclose())

    def _background(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` on the loop without waiting; :meth:`aclose` waits for what is left."""
        task = asyncio.get_running_loop().create_task(coro)
        self._background_tasks.add(task)
        task.add_done_callback(self._background_tasks.discard)

    async def browser_pool(self) -> BrowserPool:
        """The running loop's shared browser pool (taken on first use, released by close)."""
        if self.pool is None or self.pool.closed:
            self.pool = await shared_pool(self.browser_config)
        return self.pool

    async def open_session(self) -> BrowserSession:
        """A fresh browser context for the next episode, from the loop's shared pool."""
        pool = await self.browser_pool()
        return await pool.new_session(NetworkPolicy(self.allowed_origins()))

    async def _prepared_session(self) -> BrowserSession:
        session = await self.open_session()
        try:
            await self.prepare_session(session)
        except BaseException:
            await session.aclose()
            raise
        return session

    async def _recycled_session(self) -> BrowserSession | None:
        """The previous episode's session cleared for a new one, or None (closed if unusable)."""
        session = self.session
        if not self.reuse_context or session is None or session.closed or session.handle.dead:
            return None
        try:
            await session.recycle(NetworkPolicy(self.allowed_origins()))
            return session
        except Exception as e:  # a dead or confused context: the reset opens a fresh one
            logger.debug("recycling the browser context failed: %s", e)
            await self._close_session(wait=False)
            return None

    async def attach_session(self) -> BrowserSession:
        """Take this episode's browser context on the running loop (the last one cleared, a
        prefetched one or a new one) with a fresh navigation watch; a reset and a fork's
        restore (``envs/webarena/fork.py``) start this way."""
        loop = asyncio.get_running_loop()
        if self.home_loop is not None and self.home_loop is not loop \
                and not self.home_loop.is_running():
            self.forget_ended_loop()
        self.home_loop = loop
        session = await self._recycled_session()
        if session is None:
            await self._close_session(wait=False)  # its slot frees in the background
            session = await self.prefetcher.take() or await self.open_session()
        self.session = session
        if self.navigation is not None:
            self.navigation.close()
        self.navigation = NavigationWatch(session.context)
        return session

    async def _areset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        session = await self.attach_session()
        self.done, self.steps, self.answer, self.last_error = False, 0, None, ""
        self.element_ids.clear()
        self.goal, info = await self.setup_episode(options)
        obs = await self.observe()
        info.setdefault("goal", self.goal)
        if self.reuse_context:  # the next recycle's tab opens while this episode runs
            session.open_spare_tab()
        if self.prefetch and not self.reuse_context and self.pool is not None \
                and self.pool.free_slots() > 0:
            self.prefetcher.start(self._prepared_session)
        return obs, info

    async def _astep(self, action: Any) -> StepResult:
        if self.done or self.session is None:
            raise ResetNeeded("call reset() before step(); the episode has ended")
        self.steps += 1
        self.last_error = ""
        info: dict[str, Any] = {"step": self.steps}
        parsed: WebAction | None = None
        try:
            parsed = parse_action(action, self.tools)
            if parsed.name == "stop":
                self.answer = parsed.text
            await execute(self.session, parsed, self.element_ids.backend,
                          self.browser_config.viewport, self.navigation, self.navigation_grace_s)
        except (ActionParseError, ActionFailed) as e:
            self.last_error = str(e)
        except BrowserCrashed:
            raise
        except Exception as e:  # a bug in parsing or executing must not end the run
            logger.exception("web action crashed")
            self.last_error = f"{type(e).__name__}: {e}"[:300]
        reward, terminated = 0.0, False
        if parsed is not None:
            info["action"] = parsed.to_text()
            try:
                reward, terminated, extra = await self.evaluate(parsed)
                info.update(extra)
            except BrowserCrashed:
                raise
            except Exception as e:  # the page is not in a state the scorer can read
                logger.debug("evaluate failed after %s: %s", parsed.name, e)
                info["evaluate_error"] = f"{type(e).__name__}: {e}"[:300]
        if self.last_error:
            info["error"] = self.last_error
        info["blocked_requests"] = self.session.policy.blocked
        self.done = terminated
        obs = await self.observe()
        return obs, float(reward), bool(terminated), False, info

    async def _aclose(self) -> None:
        await self.prefetcher.aclose()
        await self._close_session()
        if self._background_tasks:
            await asyncio.gather(*self._background_tasks, return_exceptions=True)
        if self.pool is not None:
            pool, self.pool = self.pool, None
            await release_pool(pool)

    def close(self) -> None:
        """Close the session on the loop that opened it (the engine closes envs from threads);
        when that loop has ended, kill its browsers instead (nothing of it can be awaited)."""
        home = self.home_loop
        if home is not None and home is not self._loop and not home.is_running():
            self.forget_ended_loop()
            self.home_loop = None
            super().close()
            return
        if home is not None and home is not self._loop and home.is_running():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is home:  # called synchronously on the loop itself: schedule it
                home.create_task(self._aclose())
            else:
                asyncio.run_coroutine_threadsafe(self._aclose(), home).result(timeout=30)
            self.home_loop = None
            return
        super().close()
        self.home_loop = None  # that loop is stopping: a second close has nothing to do

    def run_on_home_loop(self, coro: Coroutine[Any, Any, T], timeout_s: float = 30.0) -> T:
        """Run ``coro`` on the loop that owns the browser session, from another thread."""
        home = self.home_loop
        if home is None or not home.is_running():
            coro.close()
            raise ResetNeeded("the env has no running browser session; call reset() first")
        return asyncio.run_coroutine_threadsafe(coro, home).result(timeout=timeout_s)


__all__ = ["INSTRUCTIONS", "WebEnv"]
