"""Auto-login to real WebArena servers, as WebArena's ``auto_login.py`` does it.

For each site that needs a login (shopping, shopping_admin, reddit, gitlab) a storage state is
made by signing in through the site's own login form with WebArena's published account, in a
fresh browser context, and saved as ``<auth_dir>/<site>_state.json`` (default
``~/.cache/agentgym/webarena/auth/<host>``). A saved state is checked once per process the way
``auto_login.py``'s ``is_expired`` does (the account page must open, or show its keyword) and
made again when it has expired; every env of the process then shares the checked cookies,
checked again after :data:`RECHECK_S`. A
login that does not take raises :class:`~agentgym.errors.InfrastructureError`: the episode is
aborted, not scored.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agentgym.errors import InfrastructureError

logger = logging.getLogger(__name__)

ACCOUNTS = {
    "reddit": ("MarvelsGrantMan136", "test1234"),
    "gitlab": ("byteblaze", "hello1234"),
    "shopping": ("emma.lopez@gmail.com", "Password.123"),
    "shopping_admin": ("admin", "admin1234"),
}
"""WebArena's published accounts (``browser_env/env_config.py``)."""


@dataclass(frozen=True)
class ExpiryCheck:
    """Where ``is_expired`` looks: a path, and a keyword of the page (else the URL must stay)."""

    path: str
    keyword: str = ""


CHECKS = {"gitlab": ExpiryCheck("/-/profile"), "shopping": ExpiryCheck("/wishlist/"),
          "shopping_admin": ExpiryCheck("/dashboard", "Dashboard"),
          "reddit": ExpiryCheck(f"/user/{ACCOUNTS['reddit'][0]}/account", "Delete")}


async def sign_in(page: Any, site: str, base: str) -> None:
    """Fill and send ``site``'s login form with its account (``auto_login.py``'s steps)."""
    user, password = ACCOUNTS[site]
    if site == "shopping":
        await page.goto(f"{base}/customer/account/login/")
        await page.get_by_label("Email", exact=True).fill(user)
        await page.get_by_label("Password", exact=True).fill(password)
        await page.get_by_role("button", name="Sign In").click()
    elif site == "reddit":
        await page.goto(f"{base}/login")
        await page.get_by_label("Username").fill(user)
        await page.get_by_label("Password").fill(password)
        await page.get_by_role("button", name="Log in").click()
    elif site == "shopping_admin":
        await page.goto(base)
        await page.get_by_placeholder("user name").fill(user)
        await page.get_by_placeholder("password").fill(password)
        await page.get_by_role("button", name="Sign in").click()
    elif site == "gitlab":
        await page.goto(f"{base}/users/sign_in")
        await page.get_by_test_id("username-field").fill(user)
        await page.get_by_test_id("password-field").fill(password)
        await page.get_by_test_id("sign-in-button").click()
    await page.wait_for_load_state("load")


async def signed_in(page: Any, site: str, base: str) -> bool:
    """``auto_login.py``'s ``is_expired``, negated."""
    check = CHECKS[site]
    url = f"{base}{check.path}"
    await page.goto(url, wait_until="load")
    if check.keyword:
        return check.keyword in await page.content()
    return page.url.rstrip("/") == url.rstrip("/")


RECHECK_S = 1800.0
"""A checked state is checked again after this long (sites expire sessions)."""
_CHECKED: dict[tuple[str, str, str], tuple[float, list[dict[str, Any]]]] = {}
"""(auth dir, site, URL) -> (when, cookies) checked in this process (shared by its envs)."""
_LOCKS: dict[int, asyncio.Lock] = {}
"""One login at a time per event loop (the envs of an engine share theirs)."""


class AutoLogin:
    """Storage states for the sites that need one, made and refreshed as needed."""

    def __init__(self, urls: dict[str, str], auth_dir: Path | None = None) -> None:
        self.urls = urls
        host = urlsplit(next(iter(urls.values()), "")).netloc.replace(":", "_") or "sites"
        self.auth_dir = auth_dir or Path.home() / ".cache" / "agentgym" / "webarena" / "auth" / host

    def path(self, site: str) -> Path:
        """Where ``site``'s storage state is kept."""
        return self.auth_dir / f"{site}_state.json"

    async def cookies(self, site: str, new_session: Any) -> list[dict[str, Any]]:
        """The login cookies of ``site``; ``new_session()`` gives a fresh browser session."""
        if site not in ACCOUNTS or site not in self.urls:
            return []
        key = (str(self.auth_dir), site, self.urls[site])
        loop = id(asyncio.get_running_loop())
        async with _LOCKS.setdefault(loop, asyncio.Lock()):
            when, cookies = _CHECKED.get(key, (0.0, []))
            if time.monotonic() - when > RECHECK_S or not when:
                cookies = await self._ensure(site, new_session)
                _CHECKED[key] = (time.monotonic(), cookies)
            return list(cookies)

    async def _ensure(self, site: str, new_session: Any) -> list[dict[str, Any]]:
        base, path = self.urls[site], self.path(site)
        session = await new_session()
        try:
            page, context = session.page, session.context
            if path.exists():
                state = json.loads(path.read_text(encoding="utf-8"))
                await session.guard(context.add_cookies(state.get("cookies", [])))
                if await session.guard(signed_in(page, site, base)):
                    return list(state.get("cookies", []))
                logger.info("the %s login has expired: signing in again", site)
                await session.guard(context.clear_cookies())
            await session.guard(sign_in(page, site, base))
            if not await session.guard(signed_in(page, site, base)):
                raise InfrastructureError(f"auto-login to {site} at {base} failed "
                                          f"(the account page did not open)")
            state = await session.guard(context.storage_state())
        finally:
            await session.aclose()
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(json.dumps(state), encoding="utf-8")
        scratch.replace(path)  # atomic: another process may be reading it
        return list(state.get("cookies", []))
