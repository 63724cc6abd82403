"""MiniWoB++ tasks as agentgym envs on the shared browser layer (``miniwob/<task>-v0``).

Reset opens the task page from the loopback server in a fresh browser context, seeds the page's
``Math.seedrandom`` with the instance's seed, raises ``core.EPISODE_MAX_TIME`` (the page's own
10-second limit is too short for a model that thinks between actions; the turn limit bounds the
episode instead) and calls ``core.startEpisodeReal()``. The goal is the page's utterance. After
each action the reward is read from the page's own globals: ``WOB_DONE_GLOBAL`` ends the episode
and ``WOB_RAW_REWARD_GLOBAL`` (or the time-scaled ``WOB_REWARD_GLOBAL``) scores it.

The reward is bound to the episode's own task, seed and page: reset marks the document it seeded
with a fresh token (a read-only property the agent's actions cannot set), and a reward is read
only from a document carrying that token at the task's URL. A task tab that shows anything else
(another MiniWoB++ task of the same origin, the same task reloaded for an unseeded instance, a
page it went back to) ends the episode with reward 0; so does a closed task tab.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from agentgym.errors import EnvError, TaskError
from agentgym.tasks import Task

from ..actions import WebAction
from ..env import WebEnv
from .experts import expert_script
from .server import base_url
from .tasks import KNOWN_BROKEN, load_tasks

if TYPE_CHECKING:
    from playwright.async_api import Page

    from agentgym.sandboxes.browser import BrowserSession

REWARD_MODES = ("binary", "raw", "original")
STATE_JS = """([token, path]) => {
  if (window.__agentgymEpisode !== token || location.pathname !== path) return null;
  return [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_GLOBAL, WOB_REWARD_REASON];
}"""
"""The page's reward globals, or null when the tab no longer shows the seeded episode page."""
START_JS = """([seed, maxMs, token]) => {
  Object.defineProperty(window, '__agentgymEpisode', {value: token});  // read-only, per document
  Math.seedrandom(seed);
  core.EPISODE_MAX_TIME = maxMs;
  core.startEpisodeReal();
  const display = document.getElementById('reward-display');
  if (display) display.setAttribute('aria-hidden', 'true');
  return WOB_TASK_READY ? core.getUtterance() : null;
}"""
TASK_AREA = (0, 0, 160, 210)
"""The task's 160x210 box at the page's top-left (what the screenshot shows by default)."""


class MiniWoBEnv(WebEnv):
    """One MiniWoB++ task; its instances (seeds) form the train and test splits."""

    def __init__(
        self,
        task: str,
        split: str = "train",
        *,
        reward_mode: str = "binary",
        episode_max_time_s: float = 3600.0,
        screenshot: bool = True,
        screenshot_clip: tuple[int, int, int, int] | None = TASK_AREA,
        **web_options: Any,
    ) -> None:
        web_options.setdefault("navigation_grace_s", 0.0)  # a task is one page: nothing loads
        super().__init__(screenshot=screenshot, screenshot_clip=screenshot_clip, **web_options)
        if reward_mode not in REWARD_MODES:
            raise EnvError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        self.name = task
        self.split = split
        self.task_set = load_tasks(task).split(split)
        self.reward_mode = reward_mode
        """``binary`` (1 when the raw reward is positive), ``raw`` (-1..1), ``original``
        (MiniWoB's time-scaled reward)."""
        self.episode_max_time_s = episode_max_time_s
        self.task: Task | None = None
        self.task_page: Page | None = None
        """The tab holding the task (the reward is read there even when another tab is active)."""
        self.episode_token = ""
        """Marks the document this episode seeded; a reward is read only from it."""
        if task in KNOWN_BROKEN:
            self.instructions += f"\n(Known limitation of this task: {KNOWN_BROKEN[task]}.)"

    def allowed_origins(self) -> list[str]:
        """Only the loopback server of the MiniWoB++ pages."""
        return [base_url()]

    def _select(self, options: dict[str, Any]) -> Task:
        if "task_id" in options:
            return self.task_set.get(str(options["task_id"]))
        if not len(self.task_set):
            raise TaskError(f"split {self.split!r} has no instances")
        if "index" in options:
            return self.task_set[int(options["index"]) % len(self.task_set)]
        return self.task_set[int(self.np_random.integers(len(self.task_set)))]

    def page_url(self) -> str:
        """The task's page on the loopback server."""
        return f"{base_url()}miniwob/{self.name}.html"

    async def prepare_session(self, session: BrowserSession) -> None:
        """Load the task page into the next episode's fresh context; the episode is started
        (seeded) only by :meth:`setup_episode`, so the instance is still the seed's."""
        await session.guard(session.page.goto(self.page_url(), wait_until="load"))

    async def setup_episode(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Load the page, seed it and start the episode; the goal is the utterance."""
        assert self.session is not None  # noqa: S101 -- set by WebEnv before this call
        self.task = self._select(options)
        seed = int(self.task.data["seed"])
        page = self.task_page = self.session.page
        if page.url != self.page_url():  # else prepare_session loaded it (not yet started)
            await self.session.guard(page.goto(self.page_url(), wait_until="load"))
        self.episode_token = secrets.token_hex(16)
        utterance = await self.session.guard(page.evaluate(
            START_JS, [seed, int(self.episode_max_time_s * 1000), self.episode_token]))
        if utterance is None:  # the task builds its problem asynchronously
            await self.session.guard(page.wait_for_function("WOB_TASK_READY"))
            utterance = await self.session.guard(page.evaluate("core.getUtterance()"))
        return str(utterance), {"task_id": self.task.task_id, "split": self.split, "seed": seed}

    async def evaluate(self, action: WebAction) -> tuple[float, bool, dict[str, Any]]:
        """Read the seeded task page's reward globals; ``stop`` ends an unfinished episode at 0,
        and so does a task tab that was closed or no longer shows the seeded page."""
        assert self.session is not None  # noqa: S101
        info: dict[str, Any] = {"task_id": self.task.task_id if self.task else None}
        page = self.task_page
        if page is None or page.is_closed():
            info.update(success=False, raw_reward=0.0, reason="the task tab was closed")
            return 0.0, True, info
        state = await self.session.guard(page.evaluate(STATE_JS, [
            self.episode_token, f"/miniwob/{self.name}.html"]))
        if state is None:
            info.update(success=False, raw_reward=0.0,
                        reason="the task tab left the episode's task page")
            return 0.0, True, info
        done, raw, scaled, reason = state
        if not done:
            if action.name == "stop":
                info.update(success=False, raw_reward=0.0, reason="stopped")
                return 0.0, True, info
            return 0.0, False, info
        raw = float(raw or 0.0)
        reward = {"binary": float(raw > 0), "raw": raw, "original": float(scaled or 0.0)}
        info.update(success=raw > 0, raw_reward=raw, reason=reason)
        return reward[self.reward_mode], True, info

    # -- expert --------------------------------------------------------------------------

    async def aexpert_actions(self) -> list[str] | None:
        """Run the task's expert script in the page and return its actions as text."""
        script = expert_script(self.name)
        if script is None or self.session is None:
            return None
        session = self.session
        res = await session.cdp("Runtime.evaluate", {"expression": script,
                                                     "returnByValue": False})
        if "exceptionDetails" in res:
            detail = res["exceptionDetails"].get("exception", {}).get("description", "")
            raise EnvError(f"the {self.name} expert failed: {detail[:300]}")
        handle = res["result"]["objectId"]
        steps = (await session.cdp("Runtime.callFunctionOn", {
            "objectId": handle, "functionDeclaration": "function() { return this.steps; }",
            "returnByValue": True}))["result"]["value"]
        actions = []
        for op, index, text in steps:
            element = await self._element_id(handle, int(index))
            actions.append(WebAction(op, element=element, text=text, press_enter=False).to_text())
        return actions

    async def _element_id(self, handle: str, index: int) -> int:
        assert self.session is not None  # noqa: S101
        session = self.session
        obj = await session.cdp("Runtime.callFunctionOn", {
            "objectId": handle, "arguments": [{"value": index}],
            "functionDeclaration": "function(i) { return this.elements[i]; }"})
        node = (await session.cdp("DOM.describeNode", {"objectId": obj["result"]["objectId"],
                                                       "depth": -1}))["node"]
        shown = set(self.tree.backend.values())
        stack = [node]
        while stack:  # the element itself, else its first descendant the tree shows
            current = stack.pop(0)
            if current.get("backendNodeId") in shown:
                return self.element_id(int(current["backendNodeId"]))
            stack.extend(current.get("children", ()))
        return self.element_id(int(node["backendNodeId"]))

    def expert_actions(self, task: Task) -> list[str] | None:
        """The expert protocol (called from a worker thread): runs on the env's loop."""
        if self.session is None:
            return None
        return self.run_on_home_loop(self.aexpert_actions())


__all__ = ["REWARD_MODES", "MiniWoBEnv"]
