"""Real WebArena servers as a :class:`~.site_backend.SiteBackend`.

The servers are named by a :class:`~.official_sites.SiteConfig` (``sites=``, a sites file or
the ``WA_*`` variables). They run the official task sets; a ``require_reset`` task runs the
configured reset hooks first (:func:`~.official_sites.run_reset`); logins come from the given
storage states, else :class:`~.official_login.AutoLogin` signs in through each site's form.
Their data is not copied per episode: there is no site session to make or drop.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgym.sandboxes.browser import BrowserSession
from agentgym.tasks import TaskSet

from .official import official_split
from .official_login import AutoLogin
from .official_sites import SiteConfig, check_reachable, run_reset
from .site_backend import Cookie, SiteClient


class RealSites(SiteClient):
    """WebArena's own servers, as ``config`` names them."""

    external = True

    def __init__(self, config: SiteConfig) -> None:
        super().__init__()
        self.config = config
        self.urls: dict[str, str] = dict(config.urls)
        self.session_id = ""
        self.task_file: str | None = config.task_file
        self._auto_login: AutoLogin | None = None

    def start(self) -> None:
        """Nothing to start: the servers run elsewhere."""

    def check(self) -> None:
        """Ask every site once (per process); raise naming the first dead one."""
        check_reachable(self.config.urls)

    def tasks(self, task_set: str, split: str) -> TaskSet:
        """One split of the official set (``auto``: WebArena-Lite's 165)."""
        return official_split("webarena-lite" if task_set == "auto" else task_set, split)

    def origins(self) -> list[str]:
        """The sites' origins and the map's services."""
        return self.config.origins()

    async def prepare(self, session: BrowserSession) -> None:
        """Nothing: a page of a real server may set cookies or change state."""

    async def begin_episode(self, config: dict[str, Any]) -> list[Cookie]:
        """Run the reset hooks of the task's sites when the task requires a reset."""
        if config.get("require_reset"):
            for site in config.get("sites", ()):
                if site in self.config.reset:
                    await run_reset(site, self.config.reset[site], self.client())
        return []

    async def login_cookies(self, sites: Any, open_session: Any) -> list[Cookie]:
        """The storage state's cookies of each site, else a login made by :class:`AutoLogin`."""
        cookies: list[Cookie] = []
        for site in sites:
            path = self.config.storage_states.get(site)
            if path:
                state = json.loads(Path(path).read_text(encoding="utf-8"))
                cookies += state.get("cookies", [])
                continue
            if self._auto_login is None:
                self._auto_login = AutoLogin(self.urls, self.config.auth_dir)
            cookies += await self._auto_login.cookies(site, open_session)
        return cookies

    async def drop_session(self, sid: str) -> None:
        """Nothing to drop: real servers keep no per-episode copy."""

    def forget_loop(self) -> None:
        """Drop the ended loop's client."""
        self.forget_client()

    async def aclose(self) -> None:
        """Close the client."""
        await self.aclose_client()


__all__ = ["RealSites"]
