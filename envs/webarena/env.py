"""``web/webarena-lite-v0``: WebArena-Lite tasks on the bundled sites, or on real WebArena servers.

Each episode gets a fresh browser context (issue 11's :class:`~agentgym.envs.web.WebEnv`) and,
on the bundled sites, a fresh copy of every site's database (a new ``wa_session`` cookie, see
:mod:`.sites.state`). Where the task says ``require_login`` the env logs in before the first
observation. The agent answers with ``stop [answer]`` (or the ``stop`` tool's ``answer``); the
reward is the WebArena-Lite evaluator's score (:mod:`.evaluators`). The turn limit (15, as in
WebAgent-R1) is the registry's :class:`~agentgym.TurnLimit` truncation.

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
import secrets
from pathlib import Path
from typing import Any

import httpx

from agentgym.envs.web import INSTRUCTIONS as WEB_INSTRUCTIONS
from agentgym.envs.web import WebAction, WebEnv
from agentgym.errors import EnvError
from agentgym.sandboxes.browser import (
    BrowserConfig,
    BrowserSession,
)
from agentgym.tasks import Task, TaskSet

from . import verified_client
from .evaluators import evaluate
from .expert import ExpertStep
from .judges import Judge, NormalizedJudge
from .netlog import NetLog
from .official import official_split
from .official_helpers import SiteHelpers
from .official_login import AutoLogin
from .official_sites import (
    SiteConfig,
    SitesNotConfigured,
    check_reachable,
    read_file,
    resolve,
    run_reset,
)
from .official_verified import RESPONSE_FORMAT, package_score
from .sites.data_forum import FORUM_USER
from .sites.data_gitlab import GITLAB_USER
from .sites.data_shop import ADMIN_USER, SHOP_USER
from .sites.state import SESSION_COOKIE, SITES
from .strict import check_mode
from .tasks import load_tasks, read_raw, to_tasks

logger = logging.getLogger(__name__)

PLACEHOLDERS = {site: f"__{site.upper()}__" for site in SITES}
"""WebArena site name -> its URL placeholder in task files (``__SHOPPING_ADMIN__``)."""
ACCOUNTS = {"shopping": SHOP_USER, "shopping_admin": ADMIN_USER, "reddit": FORUM_USER,
            "gitlab": GITLAB_USER}
"""Bundled sites' logins used where a task requires one."""
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
        cfg = read_file(config) if config is not None else {}
        self.site_config: SiteConfig | None = resolve(sites, cfg)
        if self.site_config is not None and storage_states:
            self.site_config.storage_states.update(storage_states)
        task_file = task_file or (self.site_config.task_file if self.site_config else None)
        self.split = split
        self.external = self.site_config is not None
        self.site_urls: dict[str, str] = dict(self.site_config.urls) if self.site_config else {}
        self.judge: Judge = judge or NormalizedJudge()
        self.eval_mode = check_mode(eval_mode)
        if task_file is not None:
            self.task_set = TaskSet(to_tasks(read_raw(task_file), split), name=str(task_file))
        elif task_set in ("webarena", "webarena-verified") or self.external:
            name = "webarena-lite" if task_set == "auto" else task_set
            if not self.external:
                raise SitesNotConfigured(
                    f"{name} runs on the WebArena servers: give their URLs with sites= "
                    f"(agentgym eval --sites FILE) or the WA_* variables")
            self.task_set = official_split(name, split)
        else:
            self.task_set = load_tasks().split(split)
        if task_ids is not None:
            wanted = {str(t) for t in task_ids}
            unknown = wanted - set(self.task_set.ids())
            if unknown:
                raise EnvError(f"no task {', '.join(sorted(unknown))} in {self.task_set.name}")
            self.task_set = TaskSet([t for t in self.task_set if t.task_id in wanted],
                                    name=self.task_set.name)
        if self.site_config is not None:
            check_reachable(self.site_config.urls)
        self.task: Task | None = None
        self.session_id = ""
        self.result_info: dict[str, Any] = {}
        self._login_cookies: dict[str, str] = {}
        self._auto_login: AutoLogin | None = None
        self._http: httpx.AsyncClient | None = None
        self.netlog = NetLog()
        """The episode's requests and responses (HAR entries, :mod:`.netlog`)."""

    # -- sites -------------------------------------------------------------------------------

    def _ensure_sites(self) -> None:
        if not self.site_urls:
            from .sites.server import ensure_sites

            self.site_urls = dict(ensure_sites().urls)

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
        if self.site_config is not None:
            return self.site_config.origins()
        return list(self.site_urls.values())

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
        await asyncio.to_thread(self._ensure_sites)
        return await super().open_session()

    async def prepare_session(self, session: BrowserSession) -> None:
        """Open a page of the sites' origin in the prefetched context, so the renderer the
        start page needs is already running (the page sets no cookie and changes no state)."""
        if self.external:
            return
        url = f"{next(iter(self.site_urls.values()))}/__agentgym__/health"
        await session.guard(session.page.goto(url, wait_until="load"))

    async def _areset(self, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """WebEnv's reset; the previous episode's site session is dropped in the background."""
        previous = self.session_id
        result = await super()._areset(options)
        if previous:
            self._background(self._drop_session(previous))
        return result

    async def setup_episode(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Pick the task, give the context a fresh site session, log in, open the start URL."""
        task = self.select_task(options)
        self.task = task
        config = task.data["config"]
        missing = [s for s in config.get("sites", ()) if s not in self.site_urls]
        if missing:
            raise EnvError(f"task {task.task_id} needs sites with no URL: {', '.join(missing)}")
        if self.site_config is not None and config.get("require_reset"):
            for site in config.get("sites", ()):
                if site in self.site_config.reset:
                    await run_reset(site, self.site_config.reset[site], self._site_client())
        assert self.session is not None  # noqa: S101 -- set by WebEnv._areset
        context = self.session.context
        self.result_info = {}
        self.netlog.clear()
        self.netlog.attach(context)
        cookies: list[dict[str, Any]] = []
        if not self.external:
            self.session_id = secrets.token_urlsafe(12)
            cookies = [{"name": SESSION_COOKIE, "value": self.session_id, "url": url}
                       for url in self.site_urls.values()]
        if config.get("require_login"):
            cookies += await self._login_cookies_for(config.get("sites", ()))
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

    async def _login_cookies_for(self, sites: Any) -> list[dict[str, Any]]:
        """The cookies that log the episode in to ``sites`` (storage states on real servers)."""
        cookies: list[dict[str, Any]] = []
        for site in sites:
            if self.site_config is not None:
                path = self.site_config.storage_states.get(site)
                if path:
                    state = json.loads(Path(path).read_text(encoding="utf-8"))
                    cookies += state.get("cookies", [])
                    continue
                if self._auto_login is None:
                    self._auto_login = AutoLogin(self.site_urls, self.site_config.auth_dir)
                cookies += await self._auto_login.cookies(site, self.open_session)
                continue
            if site not in ACCOUNTS:
                continue
            base = self.site_urls[site]
            value = self._login_cookies.get(base)
            if value is None:  # the login cookie does not depend on the site session
                username, password = ACCOUNTS[site]
                async with httpx.AsyncClient(cookies={SESSION_COOKIE: self.session_id}) as client:
                    resp = await client.post(f"{base}/login", data={"username": username,
                                                                     "password": password})
                value = resp.cookies.get(f"wa_login_{site}")
                if resp.status_code != 303 or not value:
                    raise EnvError(f"login to the bundled {site} site failed "
                                   f"({resp.status_code})")
                self._login_cookies[base] = value
            cookies.append({"name": f"wa_login_{site}", "value": value, "url": base})
        return cookies

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
            helpers = SiteHelpers(self.site_urls, self._site_client())
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

    async def _drop_session(self, sid: str) -> None:
        try:
            await self._site_client().delete(f"{next(iter(self.site_urls.values()))}"
                                             f"/__agentgym__/sessions/{sid}")
        except httpx.HTTPError as e:  # the server collects idle sessions anyway
            logger.debug("dropping site session %s failed: %s", sid, e)

    def forget_ended_loop(self) -> None:
        """Also drop the sites' HTTP client of the ended loop (the site server collects the
        old episode's session when it idles)."""
        super().forget_ended_loop()
        self._http = None
        self.session_id = ""

    def _site_client(self) -> httpx.AsyncClient:
        """The env's HTTP client for the bundled sites' control routes, made once: building
        a client loads a TLS context (about 50 ms of CPU), too much for every episode."""
        if self._http is None:
            self._http = httpx.AsyncClient(timeout=5, verify=False)  # noqa: S501 -- loopback http
        return self._http

    async def _aclose(self) -> None:
        await super()._aclose()
        if self.session_id and not self.external:
            await self._drop_session(self.session_id)
            self.session_id = ""
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    # -- expert ------------------------------------------------------------------------------

    def expert_actions(self, task: Task) -> list[ExpertStep] | None:
        """The task's expert steps, resolved against each observation as the episode runs."""
        steps = task.data["config"].get("expert")
        if not steps:
            return None
        return [ExpertStep.from_json(s, self.placeholders()) for s in steps]


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


__all__ = ["ACCOUNTS", "INSTRUCTIONS", "PLACEHOLDERS", "WebArenaEnv", "load_env_tasks"]
