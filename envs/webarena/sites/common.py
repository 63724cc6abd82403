"""What every bundled site shares: the app factory, sessions, login, input checks, pages.

Input policy (every site): path ids are integers in range or a 404; query parameters and form
fields have length caps and allowed characters, else a 400 page; text fields refuse markup
(``<`` and ``>``) and control characters; a bad ``next`` redirect target is refused; malformed
bodies are a 400. Jinja2 escapes everything it renders. A rejected request never writes.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
import sqlite3
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .state import PUBLIC_SESSION, SESSION_COOKIE, SessionStore, valid_session_id

TEMPLATES = Path(__file__).resolve().parent / "templates"
JINJA = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
_BAD_TEXT = re.compile(r"[<>\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_QUERY = 200
PER_PAGE = 20
_SECRET = secrets.token_bytes(32)
Pages = dict[str, Callable[[Request], Awaitable[Response]]]
"""A route module's endpoints by name; the site's ``make_app`` maps URLs to them."""


@dataclass
class Site:
    """One bundled site: its WebArena name, title, navigation and the shared session store."""

    name: str
    title: str
    store: SessionStore
    nav: list[tuple[str, str]] = field(default_factory=list)
    search: tuple[str, str] | None = None
    """(action URL, placeholder) of the header search box, or None."""

    @contextmanager
    def db(self, request: Request) -> Iterator[sqlite3.Connection]:
        """The request's session database; committed on success, rolled back on error."""
        conn = self.store.connect(session_id(request), self.name)
        try:
            yield conn
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        finally:
            conn.close()

    def render(self, request: Request, template: str, status: int = 200, **ctx: Any) -> Response:
        """Render ``template`` inside the site's layout."""
        html = JINJA.get_template(template).render(
            site=self, user=current_user(request, self.name), path=request.url.path,
            query=request.query_params.get("q", ""), **ctx)
        return HTMLResponse(html, status_code=status)


def session_id(request: Request) -> str:
    """The episode session of a request (``public`` without a valid cookie)."""
    sid = request.cookies.get(SESSION_COOKIE, PUBLIC_SESSION)
    return sid if valid_session_id(sid) else PUBLIC_SESSION


# -- login -------------------------------------------------------------------------------------


def login_cookie(site: str) -> str:
    """Name of the login cookie of ``site``."""
    return f"wa_login_{site}"


def sign(site: str, username: str) -> str:
    """Cookie value proving ``username`` logged in to ``site`` (valid for this server's life)."""
    mac = hmac.new(_SECRET, f"{site}:{username}".encode(), hashlib.sha256).hexdigest()[:32]
    return f"{username}|{mac}"


def current_user(request: Request, site: str) -> str | None:
    """The logged-in username, or None."""
    value = request.cookies.get(login_cookie(site), "")
    username, _, _ = value.partition("|")
    if username and hmac.compare_digest(value, sign(site, username)):
        return username
    return None


def require_user(request: Request, site: str) -> str:
    """The logged-in username, else a redirect to the login page (raised)."""
    user = current_user(request, site)
    if user is None:
        raise HTTPException(303, headers={"Location": f"/login?next={request.url.path}"})
    return user


def safe_next(target: str) -> str:
    """A same-site relative redirect target, or ``/``."""
    ok = target.startswith("/") and not target.startswith("//") and "\\" not in target
    return target if ok and len(target) < MAX_QUERY and not _BAD_TEXT.search(target) else "/"


# -- input checks ------------------------------------------------------------------------------


def query_text(request: Request, name: str, default: str = "", max_len: int = MAX_QUERY) -> str:
    """A query parameter as text (400 when too long or holding control characters)."""
    value = request.query_params.get(name, default)
    if len(value) > max_len or re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", value):
        raise HTTPException(400, f"invalid parameter {name!r}")
    return value.strip()


def query_int(request: Request, name: str, default: int, lo: int = 1, hi: int = 10**6) -> int:
    """An integer query parameter in ``[lo, hi]`` (400 otherwise)."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not lo <= int(raw) <= hi:
        raise HTTPException(400, f"invalid parameter {name!r}")
    return int(raw)


def query_choice(request: Request, name: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (the first by default; 400 for anything else)."""
    value = request.query_params.get(name) or choices[0]
    if value not in choices:
        raise HTTPException(400, f"invalid parameter {name!r}")
    return value


def path_int(request: Request, name: str) -> int:
    """An integer path parameter (404 when it is not a sane positive integer)."""
    raw = str(request.path_params.get(name, ""))
    if not raw.isdigit() or len(raw) > 9:
        raise HTTPException(404, "no such page")
    return int(raw)


async def read_form(request: Request) -> FormData:
    """The request's urlencoded form (400 for other bodies or too many fields)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != "application/x-www-form-urlencoded":
        raise HTTPException(400, "forms must be sent as application/x-www-form-urlencoded")
    try:
        body = await request.body()
        if len(body) > 65536:
            raise HTTPException(413, "form too large")
        return await request.form(max_fields=50)
    except HTTPException:
        raise
    except Exception as e:  # malformed bodies of any kind are the client's error
        raise HTTPException(400, "malformed form") from e


def form_text(form: Mapping[str, Any], name: str, max_len: int = 500,
              required: bool = True) -> str:
    """A text field: stripped, capped, no markup or control characters (400 otherwise)."""
    value = form.get(name, "")
    if not isinstance(value, str):
        raise HTTPException(400, f"field {name!r} must be text")
    value = value.strip()
    if required and not value:
        raise HTTPException(400, f"field {name!r} is required")
    if len(value) > max_len:
        raise HTTPException(400, f"field {name!r} is longer than {max_len} characters")
    if _BAD_TEXT.search(value):
        raise HTTPException(400, f"field {name!r} may not contain markup or control characters")
    return value


def form_int(form: Mapping[str, Any], name: str, lo: int = 0, hi: int = 10**6) -> int:
    """An integer field in ``[lo, hi]`` (400 otherwise)."""
    raw = form.get(name, "")
    if not isinstance(raw, str) or not raw.strip().isdigit() or not lo <= int(raw) <= hi:
        raise HTTPException(400, f"field {name!r} must be a whole number from {lo} to {hi}")
    return int(raw)


def form_money(form: Mapping[str, Any], name: str) -> float:
    """A price field ``0.00``-``99999.99`` (400 otherwise)."""
    raw = form.get(name, "")
    if not isinstance(raw, str) or not re.fullmatch(r"\d{1,5}(\.\d{1,2})?", raw.strip()):
        raise HTTPException(400, f"field {name!r} must be a price like 12.50")
    return float(raw)


def form_choice(form: Mapping[str, Any], name: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (400 otherwise)."""
    value = form.get(name, "")
    if value not in choices:
        raise HTTPException(400, f"field {name!r} must be one of {', '.join(choices)}")
    return str(value)


# -- pages -------------------------------------------------------------------------------------


@dataclass
class Pager:
    """Page ``page`` of ``total`` items, ``per_page`` a page."""

    page: int
    total: int
    per_page: int = PER_PAGE

    @property
    def pages(self) -> int:
        """Number of pages (at least 1)."""
        return max(1, math.ceil(self.total / self.per_page))

    @property
    def offset(self) -> int:
        """Rows to skip."""
        return (self.page - 1) * self.per_page

    def check(self) -> Pager:
        """Raise 404 for a page past the last."""
        if self.page > self.pages:
            raise HTTPException(404, "no such page")
        return self


def redirect(url: str) -> RedirectResponse:
    """A 303 redirect (after a POST)."""
    return RedirectResponse(url, status_code=303)


def build_app(site: Site, routes: list[BaseRoute]) -> Starlette:
    """The site's Starlette app: its routes, login/logout, control endpoints, error pages."""

    async def error_page(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        headers = getattr(exc, "headers", None)
        if status in (301, 302, 303, 307) and headers:
            return Response(status_code=status, headers=headers)
        detail = getattr(exc, "detail", "") or "error"
        return site.render(request, "error.html", status=status, status_code=status,
                           detail=detail)

    async def health(request: Request) -> Response:
        return JSONResponse({"site": site.name, "ok": True})

    async def drop_session(request: Request) -> Response:
        sid = str(request.path_params["sid"])
        if not valid_session_id(sid):
            raise HTTPException(404, "no such session")
        return JSONResponse({"dropped": site.store.drop(sid)})

    all_routes = [
        Route("/login", _login_page(site), methods=["GET", "POST"]),
        Route("/logout", _logout(site), methods=["GET", "POST"]),
        Route("/__agentgym__/health", health),
        Route("/__agentgym__/sessions/{sid}", drop_session, methods=["DELETE"]),
        *routes,
    ]
    return Starlette(routes=all_routes, exception_handlers={HTTPException: error_page})


def check_password(conn: sqlite3.Connection, username: str, password: str) -> bool:
    """Whether the site's ``users`` table holds this username and password."""
    try:
        row = conn.execute("SELECT password FROM users WHERE username = ?",
                           (username,)).fetchone()
    except sqlite3.OperationalError:  # a site without accounts (map, wiki)
        return False
    return row is not None and hmac.compare_digest(str(row[0]), password)


def _login_page(site: Site) -> Any:
    async def login(request: Request) -> Response:
        target = safe_next(request.query_params.get("next", "/"))
        if request.method == "GET":
            return site.render(request, "login.html", next=target, error="")
        form = await read_form(request)
        username = form_text(form, "username", 100)
        password = form_text(form, "password", 100)
        with site.db(request) as conn:
            ok = check_password(conn, username, password)
        if not ok:
            return site.render(request, "login.html", status=401, next=target,
                               error="Invalid username or password.")
        resp = redirect(target)
        resp.set_cookie(login_cookie(site.name), sign(site.name, username), httponly=True)
        return resp

    return login


def _logout(site: Site) -> Any:
    async def logout(request: Request) -> Response:
        resp = redirect("/")
        resp.delete_cookie(login_cookie(site.name))
        return resp

    return logout
