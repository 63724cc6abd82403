"""Where a WebArena env's sites live: one strategy object per kind, behind :class:`SiteBackend`.

Two kinds exist, and the env asks only this protocol, never which kind it has:

* :class:`~.bundled_sites.BundledSites`: the twin sites this package serves on loopback (started
  on the first episode; a fresh copy of every site's data per episode, a ``wa_session`` cookie;
  logins with the twin's accounts);
* :class:`~.real_sites.RealSites`: real WebArena servers named by ``sites`` or the ``WA_*``
  variables (:mod:`.official_sites`): the official task sets, reset hooks before
  ``require_reset`` tasks, logins from storage states or :mod:`.official_login`.

:func:`.env.site_backend` picks the kind from the env's arguments.
"""

from __future__ import annotations

from typing import Any, Protocol

import httpx

from agentgym.sandboxes.browser import BrowserSession
from agentgym.tasks import TaskSet

Cookie = dict[str, Any]
"""A cookie as Playwright's ``BrowserContext.add_cookies`` takes it."""


class SiteBackend(Protocol):
    """What the env needs from its sites (one implementation per kind of site)."""

    external: bool
    """True on real servers (their data is not copied per episode: no fork, no site session)."""
    urls: dict[str, str]
    """Site name -> base URL (empty for the bundled sites until :meth:`start`)."""
    session_id: str
    """The episode's site session (the bundled sites' ``wa_session``; ``""`` on real servers)."""
    task_file: str | None
    """A task file the site configuration names (else ``None``)."""

    def start(self) -> None:
        """Make sure the sites run and :attr:`urls` is filled (blocking: run in a thread)."""

    def check(self) -> None:
        """Raise one clear error when a site cannot be reached."""

    def tasks(self, task_set: str, split: str) -> TaskSet:
        """The ``split`` of ``task_set`` (``auto``: the kind's own set; ``webarena``,
        ``webarena-verified``: the official ones), or an error saying why it cannot run here."""

    def origins(self) -> list[str]:
        """Every origin the episode's browser may reach."""

    async def prepare(self, session: BrowserSession) -> None:
        """Warm a prefetched browser context (it must set no cookie and change no state)."""

    async def begin_episode(self, config: dict[str, Any]) -> list[Cookie]:
        """Reset what the task ``config`` needs reset; the cookies of the episode's session."""

    async def login_cookies(self, sites: Any, open_session: Any) -> list[Cookie]:
        """The cookies that log the episode in to ``sites`` (``open_session()`` gives a fresh
        browser session where a login has to be made in a browser)."""

    async def drop_session(self, sid: str) -> None:
        """Forget the site session ``sid`` (an ended episode's data)."""

    def client(self) -> httpx.AsyncClient:
        """The HTTP client for the sites' control routes and the evaluators' helpers."""

    def forget_loop(self) -> None:
        """Drop what belongs to an ended event loop (the HTTP client, the site session)."""

    async def aclose(self) -> None:
        """Drop the episode's site session and close the HTTP client."""


class SiteClient:
    """The HTTP client both kinds share, made once per event loop: building a client loads a
    TLS context (about 50 ms of CPU), too much for every episode."""

    def __init__(self) -> None:
        self._http: httpx.AsyncClient | None = None

    def client(self) -> httpx.AsyncClient:
        """The client, made on first use."""
        if self._http is None:
            self._http = httpx.AsyncClient(timeout=5, verify=False)  # noqa: S501 -- loopback http
        return self._http

    def forget_client(self) -> None:
        """Forget the client of an ended loop (it cannot be closed from another loop)."""
        self._http = None

    async def aclose_client(self) -> None:
        """Close the client, if one was made."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None


__all__ = ["Cookie", "SiteBackend", "SiteClient"]
