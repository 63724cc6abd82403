"""``web/webarena-lite-v0``: WebArena-Lite tasks on the bundled sites, or on real WebArena servers.

Each episode gets a fresh browser context (issue 11's :class:`~agentgym.envs.web.WebEnv`) and,
on the bundled sites, a fresh copy of every site's database (a new ``wa_session`` cookie, see
:mod:`.sites.state`). Where the task says ``require_login`` the env logs in before the first
observation. The agent answers with ``stop [answer]`` (or the ``stop`` tool's ``answer``); the
reward is the WebArena-Lite evaluator's score (:mod:`.evaluators`). The turn limit (15, as in
WebAgent-R1) is the registry's :class:`~agentgym.TurnLimit` truncation.

Which kind of sites an env runs on is one strategy object, :attr:`WebArenaEnv.sites` (a
:class:`~.site_backend.SiteBackend`: :class:`~.bundled_sites.BundledSites` or
:class:`~.real_sites.RealSites`); the env never asks which kind it has.

Real WebArena: ``sites`` (site name -> base URL, e.g. ``{"shopping": "http://host:7770"}``, or
a sites file; or the ``WA_*`` variables, see :mod:`.official_sites`) switches to the official
tasks (:mod:`.official`: WebArena-Lite's 165, or ``task_set="webarena"`` /
``"webarena-verified"``), or to ``task_file``'s. Logins use the given ``storage_states`` or are
made by :mod:`.official_login`; ``func:`` checks run :mod:`.official_helpers` on the servers.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from agentgym.envs.web import INSTRUCTIONS as WEB_INSTRUCTIONS
from agentgym.envs.web import WebAction, WebEnv
from agentgym.errors import EnvError
from agentgym.sandboxes.browser import (
    BrowserConfig,
    BrowserSession,
)
from agentgym.tasks import Task, TaskSet

from . import verified_client
from .bundled_sites import ACCOUNTS, BundledSites
from .evaluators import evaluate
from .expert import ExpertStep
from .judges import Judge, NormalizedJudge
from .netlog import NetLog
from .official_helpers import SiteHelpers
from .official_sites import SiteConfig, read_file, resolve
from .official_verified import RESPONSE_FORMAT, package_score
from .real_sites import RealSites
from .site_backend import SiteBackend
from .sites.state import SITES
from .strict import check_mode
from .tasks import load_tasks, read_raw, to_tasks

logger = logging.getLogger(__name__)

PLACEHOLDERS = {site: f"__{site.upper()}__" for site in SITES}
"""WebArena site name -> its URL placeholder in task files (``__SHOPPING_ADMIN__``)."""
INSTRUCTIONS = WEB_INSTRUCTIONS + """
You are working on websites to complete the user's task. When the task asks a question, finish \
with stop [your answer]; when it asks you to do something, do it and then finish with stop []."""


class WebArenaEnv(WebEnv):
    """WebArena-Lite on the bundled sites (default) or on servers named by ``sites``."""

    instructions = INSTRUCTIONS

    def __init__(
        self,
        split: str = "test",
        *,
        task_file: str | Path | None = None,
        sites: dict[str, Any] | str | Path | None = None,
        storage_states: dict[str, str] | None = None,
        config: str | Path | None = None,
        judge: Judge | None = None,
        task_set: str = "auto",
        task_ids: list[Any] | None = None,
        eval_mode: str = "strict",
        **web_options: Any,
    ) -> None:
        """Pick the split, and the sites: the bundled ones, or real servers.

        ``sites`` maps WebArena's site names to URLs, or is the path of a sites file (see
        :mod:`.official_sites`; the ``WA_*`` variables are read when neither ``sites`` nor
        ``config`` is given). With real servers the tasks are the official ``task_set``
        (``"auto"``: WebArena-Lite's 165; ``"webarena"``; ``"webarena-verified"``) unless
        ``task_file`` names a file in WebArena's format; without, the bundled twin's tasks.
        ``task_ids`` keeps only those tasks (a slice of an official set, in its order).
        ``eval_mode``: ``strict`` (exact normalised URLs, bounded answers: for training) or
        ``official`` (WebArena's semantics, for comparable numbers); see :mod:`.strict`.
        ``web_options`` go to :class:`~agentgym.envs.web.WebEnv` (``screenshot=True``,
        ``viewport_only=True``, ``html=True``, ``browser=BrowserConfig(...)``).
        """
        web_options.setdefault("browser", BrowserConfig(timeout_s=30.0))
        super().__init__(**web_options)
        self.sites: SiteBackend = site_backend(sites, config, storage_states)
        """The kind of sites this env runs on (:mod:`.site_backend`)."""
        task_file = task_file or self.sites.task_file
        self.split = split
        self.judge: Judge = judge or NormalizedJudge()
        self.eval_mode = check_mode(eval_mode)
        if task_file is not None:
            self.task_set = TaskSet(to_tasks(read_raw(task_file), split), name=str(task_file))
        else:
            self.task_set = self.sites.tasks(task_set, split)
        if task_ids is not None:
            wanted = {str(t) for t in task_ids}
            unknown = wanted - set(self.task_set.ids())
            if unknown:
                raise EnvError(f"no task {', '.join(sorted(unknown))} in {self.task_set.name}")
            self.task_set = TaskSet([t for t in self.task_set if t.task_id in wanted],
                                    name=self.task_set.name)
        self.sites.check()
        self.task: Task | None = None
        self.result_info: dict[str, Any] = {}
        self.netlog = NetLog()
        """The episode's requests and responses (HAR entries, :mod:`.netlog`)."""

    # -- sites -------------------------------------------------------------------------------

    @property
    def external(self) -> bool:
        """True on real WebArena servers, False on the bundled sites."""
        return self.sites.external

    @property
    def site_urls(self) -> dict[str, str]:
        """Site name -> base URL (the bundled sites' once they are started)."""
        return self.sites.urls

    @property
    def site_config(self) -> SiteConfig | None:
        """The real servers' configuration (``None`` on the bundled sites)."""
        return self.sites.config if isinstance(self.sites, RealSites) else None

    @property
    def session_id(self) -> str:
        """The episode's site session on the bundled sites (``""`` on real servers)."""
        return self.sites.session_id

    @session_id.setter
    def session_id(self, value: str) -> None:
        self.sites.session_id = value

    def placeholders(self) -> dict[str, str]:
        """``__SHOPPING__``-style placeholder -> base URL, for the sites this env knows."""
        return {PLACEHOLDERS[s]: u for s, u in self.site_urls.items() if s in PLACEHOLDERS}

    def resolve(self, text: str) -> str:
        """``text`` with every site placeholder replaced by its URL."""
        for key, value in self.placeholders().items():
            text = text.replace(key, value)
        return text

    def allowed_origins(self) -> list[str]:
        """The sites' origins and, on real servers, the map's services (nothing else)."""
        return self.sites.origins()

    # -- episode -----------------------------------------------------------------------------

    def select_task(self, options: dict[str, Any]) -> Task:
        """``options["task_id"]``, else ``options["index"]``, else a task drawn with the seed."""
        if "task_id" in options:
            return self.task_set.get(str(options["task_id"]))
        if "index" in options:
            return self.task_set[int(options["index"]) % len(self.task_set)]
        return self.task_set[int(self.np_random.integers(len(self.task_set)))]

    async def open_session(self) -> BrowserSession:
        """A fresh context from the shared pool (the bundled sites are started first)."""
        await asyncio.to_thread(self.sites.start)
        return await super().open_session()

    async def prepare_session(self, session: BrowserSession) -> None:
        """Open a page of the sites' origin in the prefetched context, so the renderer the
        start page needs is already running (the page sets no cookie and changes no state)."""
        await self.sites.prepare(session)

    async def _areset(self, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """WebEnv's reset; the previous episode's site session is dropped in the background."""
        previous = self.session_id
        result = await super()._areset(options)
        if previous:
            self._background(self.sites.drop_session(previous))
        return result

    async def setup_episode(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Pick the task, give the context a fresh site session, log in, open the start URL."""
        task = self.select_task(options)
        self.task = task
        config = task.data["config"]
        missing = [s for s in config.get("sites", ()) if s not in self.site_urls]
        if missing:
            raise EnvError(f"task {task.task_id} needs sites with no URL: {', '.join(missing)}")
        cookies = await self.sites.begin_episode(config)
        assert self.session is not None  # noqa: S101 -- set by WebEnv._areset
        context = self.session.context
        self.result_info = {}
        self.netlog.clear()
        self.netlog.attach(context)
        if config.get("require_login"):
            cookies += await self.sites.login_cookies(config.get("sites", ()), self.open_session)
        if cookies:  # one call for the session and the logins
            await self.session.guard(context.add_cookies(cookies))
        urls = [self.resolve(u.strip()) for u in str(config["start_url"]).split("|AND|")]
        page = self.session.page
        await self.session.guard(page.goto(urls[0], wait_until="load"))
        for url in urls[1:]:
            await self.session.new_tab(url)
        if len(urls) > 1:
            await self.session.focus_tab(0)
        goal = str(config["intent"])
        if isinstance(config.get("eval"), list):  # WebArena-Verified: a structured answer
            goal = f"{goal}\n{RESPONSE_FORMAT}"
        return goal, {"task_id": task.task_id, "split": self.split,
                      "sites": list(config.get("sites", ()))}

    async def evaluate(self, action: WebAction) -> tuple[float, bool, dict[str, Any]]:
        """0 until ``stop``; then the WebArena-Lite evaluators' product."""
        if action.name != "stop" or self.task is None:
            return 0.0, False, {}
        config = json.loads(self.resolve(json.dumps(self.task.data["config"])))
        network_log = await self.netlog.snapshot()
        if isinstance(config.get("eval"), list) and verified_client.available():
            score, info = await package_score(self.task.data["config"], self.answer,
                                              network_log, self.site_urls)
            self.result_info = {"success": score >= 1.0, **info, "answer": self.answer}
        else:
            helpers = SiteHelpers(self.site_urls, self.sites.client())
            result = await evaluate(config, self.answer, _Probe(self), self.judge, helpers,
                                    self.eval_mode)
            score = result.score
            self.result_info = {"success": result.score >= 1.0, "eval": result.parts,
                                "eval_mode": self.eval_mode,
                                "eval_notes": result.notes, "answer": self.answer}
            if result.error:
                self.result_info["eval_error"] = result.error
        self.result_info["network_log"] = network_log
        self.result_info["network_log_dropped"] = self.netlog.dropped
        return score, True, dict(self.result_info)

    async def fork_snapshot(self, n: int) -> list[dict[str, Any]]:
        """``n`` plain-data snapshots of this episode, each with its own copy of the sites'
        data, for :func:`agentgym.fork` (:mod:`.fork`)."""
        from .fork import snapshot

        return await snapshot(self, n)

    async def fork_restore(self, snap: dict[str, Any]) -> None:
        """Bring this fresh env to a :meth:`fork_snapshot` state (ForkError when inexact)."""
        from .fork import restore

        await restore(self, snap)

    def forget_ended_loop(self) -> None:
        """Also drop the sites' HTTP client of the ended loop (the site server collects the
        old episode's session when it idles)."""
        super().forget_ended_loop()
        self.sites.forget_loop()

    async def _aclose(self) -> None:
        await super()._aclose()
        await self.sites.aclose()

    # -- expert ------------------------------------------------------------------------------

    def expert_actions(self, task: Task) -> list[ExpertStep] | None:
        """The task's expert steps, resolved against each observation as the episode runs."""
        steps = task.data["config"].get("expert")
        if not steps:
            return None
        return [ExpertStep.from_json(s, self.placeholders()) for s in steps]


def site_backend(sites: dict[str, Any] | str | Path | None, config: str | Path | None,
                 storage_states: dict[str, str] | None = None) -> SiteBackend:
    """Real servers when ``sites``, ``config``'s ``sites:`` or the ``WA_*`` variables name
    them (see :mod:`.official_sites`), else the bundled sites."""
    cfg = read_file(config) if config is not None else {}
    site_config = resolve(sites, cfg)
    if site_config is None:
        return BundledSites()
    if storage_states:
        site_config.storage_states.update(storage_states)
    return RealSites(site_config)


class _Probe:
    """The evaluators' view of the episode's browser."""

    def __init__(self, env: WebArenaEnv) -> None:
        self.env = env

    async def current_url(self) -> str:
        assert self.env.session is not None  # noqa: S101
        return str(self.env.session.page.url)

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        from playwright.async_api import Error as PlaywrightError

        session = self.env.session
        assert session is not None  # noqa: S101
        if url == "last":
            page, scratch = session.page, None
        else:
            scratch = page = await session.guard(session.context.new_page())
            await session.guard(page.goto(self.env.resolve(url), wait_until="load"))
        try:
            for action in prep:  # WebArena ignores a failing preparation
                try:
                    await session.guard(page.evaluate(f"() => {action}"))
                except PlaywrightError as e:
                    logger.debug("prep action failed: %s", e)
            if not script:
                return str(await session.guard(page.content()))
            try:
                value = await session.guard(page.evaluate(script))
            except PlaywrightError as e:  # the page is not the right one: nothing selected
                logger.debug("locator failed: %s", e)
                return None
            return None if value is None else str(value)
        finally:
            if scratch is not None:
                await session.guard(scratch.close())


def load_env_tasks() -> TaskSet:
    """The bundled task set (for ``agentgym list`` and ``agentgym eval``)."""
    return load_tasks()


__all__ = ["ACCOUNTS", "INSTRUCTIONS", "PLACEHOLDERS", "WebArenaEnv", "load_env_tasks",
           "site_backend"]
