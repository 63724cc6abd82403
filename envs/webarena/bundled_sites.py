"""The bundled twin sites as a :class:`~.site_backend.SiteBackend`.

The sites are served on loopback by :mod:`.sites.server` (started on the first episode). Each
episode gets its own copy of every site's data: a fresh ``wa_session`` cookie
(:mod:`.sites.state`), dropped in the background when the next episode starts or the env
closes. Logins use the twin's accounts (:data:`ACCOUNTS`), posted to the site's ``/login``
once per site (the login cookie does not depend on the site session).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

import httpx

from agentgym.errors import EnvError
from agentgym.sandboxes.browser import BrowserSession
from agentgym.tasks import TaskSet

from .official_sites import SitesNotConfigured
from .site_backend import Cookie, SiteClient
from .sites.data_forum import FORUM_USER
from .sites.data_gitlab import GITLAB_USER
from .sites.data_shop import ADMIN_USER, SHOP_USER
from .sites.state import SESSION_COOKIE
from .tasks import load_tasks

logger = logging.getLogger(__name__)

ACCOUNTS = {"shopping": SHOP_USER, "shopping_admin": ADMIN_USER, "reddit": FORUM_USER,
            "gitlab": GITLAB_USER}
"""Bundled sites' logins used where a task requires one."""
OFFICIAL_SETS = ("webarena", "webarena-verified")
"""Task sets that run only on the real servers (``task_set=``)."""


class BundledSites(SiteClient):
    """The twin sites: started on demand, a fresh copy of their data per episode."""

    external = False
    task_file: str | None = None

    def __init__(self) -> None:
        super().__init__()
        self.urls: dict[str, str] = {}
        self.session_id = ""
        self._login_cookies: dict[str, str] = {}

    def start(self) -> None:
        """Start the site server (or find the running one) and read its URLs."""
        if not self.urls:
            from .sites.server import ensure_sites

            self.urls = dict(ensure_sites().urls)

    def check(self) -> None:
        """Nothing to check: the sites are started by :meth:`start`."""

    def tasks(self, task_set: str, split: str) -> TaskSet:
        """The twin's own tasks for ``auto``; the official sets are refused (they run on the
        WebArena servers)."""
        if task_set in OFFICIAL_SETS:
            raise SitesNotConfigured(
                f"{task_set} runs on the WebArena servers: give their URLs with sites= "
                f"(agentgym eval --sites FILE) or the WA_* variables")
        return load_tasks().split(split)

    def origins(self) -> list[str]:
        """The sites' own origins, nothing else."""
        return list(self.urls.values())

    async def prepare(self, session: BrowserSession) -> None:
        """Open a page of the sites' origin, so the renderer the start page needs is running."""
        url = f"{next(iter(self.urls.values()))}/__agentgym__/health"
        await session.guard(session.page.goto(url, wait_until="load"))

    async def begin_episode(self, config: dict[str, Any]) -> list[Cookie]:
        """A new site session (a fresh copy of every site's data) and its cookies."""
        self.session_id = secrets.token_urlsafe(12)
        return [{"name": SESSION_COOKIE, "value": self.session_id, "url": url}
                for url in self.urls.values()]

    async def login_cookies(self, sites: Any, open_session: Any) -> list[Cookie]:
        """Log in through each site's ``/login`` with the twin's account (once per site)."""
        cookies: list[Cookie] = []
        for site in sites:
            if site not in ACCOUNTS:
                continue
            base = self.urls[site]
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

    async def drop_session(self, sid: str) -> None:
        """Ask the site server to drop session ``sid`` (it collects idle ones anyway)."""
        try:
            await self.client().delete(f"{next(iter(self.urls.values()))}"
                                       f"/__agentgym__/sessions/{sid}")
        except httpx.HTTPError as e:
            logger.debug("dropping site session %s failed: %s", sid, e)

    def forget_loop(self) -> None:
        """Drop the ended loop's client; the server collects the old session when it idles."""
        self.forget_client()
        self.session_id = ""

    async def aclose(self) -> None:
        """Drop the episode's site session and close the client."""
        if self.session_id:
            await self.drop_session(self.session_id)
            self.session_id = ""
        await self.aclose_client()


__all__ = ["ACCOUNTS", "BundledSites"]
