"""Each bundled site answers 1,000 malformed requests and hostile form input with a 4xx page,
never a 500, and its database is unchanged afterwards (the apps run in-process)."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from agentgym.envs.webarena.env import ACCOUNTS
from agentgym.envs.webarena.sites.server import app_for
from agentgym.envs.webarena.sites.state import SITES, SessionStore, ensure_templates

SID = "hostile"
HOSTILE_TEXT = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "x\x00y",
                "a\x1bb", "", "   ", "y" * 20000]
HOSTILE_NUMBER = ["-1", "abc", "1e9", "99999999999999", "", "0x10", "3.5", "<b>1</b>"]
HOSTILE_CHOICE = ["evil", "", "<script>", "' OR 1=1 --", "x" * 5000]
BAD_IDS = ["-1", "abc", "0", "99999999", "1e3", "%00", "..%2F..%2Fetc%2Fpasswd",
           "9" * 40, "<script>", "1;DROP TABLE products"]

# site -> (GET paths with {id}, POST endpoints: path, fields {name: kind})
ENDPOINTS: dict[str, tuple[list[str], list[tuple[str, dict[str, str]]]]] = {
    "shopping": (["/product/{id}", "/account/orders/{id}", "/category/{id}"], [
        ("/cart/add", {"product_id": "number", "qty": "number"}),
        ("/cart/remove", {"item_id": "number"}),
        ("/wishlist/add", {"product_id": "number"}),
        ("/product/5/review", {"nickname": "text", "rating": "choice", "title": "text",
                               "body": "text"}),
    ]),
    "shopping_admin": (["/products/{id}", "/orders/{id}", "/customers/{id}"], [
        ("/products/5", {"name": "text", "price": "number", "stock": "number",
                         "status": "choice"}),
        ("/orders/5", {"status": "choice"}),
        ("/customers/5", {"phone": "text", "city": "text", "group": "choice"}),
    ]),
    "reddit": (["/f/books/{id}", "/f/{id}", "/user/{id}"], [
        ("/f/books/1/comment", {"body": "text"}),
        ("/f/books/1/vote", {"dir": "choice"}),
        ("/submit", {"forum": "choice", "title": "text", "body": "text"}),
        ("/profile", {"bio": "text"}),
    ]),
    "gitlab": (["/byteblaze/{id}/-/issues", "/users/{id}", "/x/y/-/issues/{id}"], []),
    "map": (["/place/{id}", "/place/{id}/nearby"], []),
    "wikipedia": (["/wiki/{id}"], []),
}
LISTINGS = {"shopping": ("/search", ["page", "sort", "q"]),
            "shopping_admin": ("/products", ["page", "sort", "dir", "q"]),
            "reddit": ("/f/books", ["page", "sort"]), "gitlab": ("/explore", ["page", "sort", "q"]),
            "map": ("/search", ["page", "category", "q"]), "wikipedia": ("/index", ["page"])}
VALID = {"text": "ok", "number": "1", "choice": "up"}


def _gitlab_posts(client: TestClient) -> list[tuple[str, dict[str, str]]]:
    page = client.get("/explore").text
    path = page.split('<a href="/', 2)[2].split('"', 1)[0]  # first project link
    base = f"/{path}/-/issues/1"
    return [(f"{base}/comment", {"body": "text"}), (f"{base}/assign", {"assignee": "choice"}),
            (f"{base}/label", {"label": "choice"}),
            (f"/{path}/-/issues/new", {"title": "text", "description": "text"}),
            (f"/{path}/-/project_members", {"username": "choice", "role": "choice"}),
            (f"/{path}/-/labels", {"name": "text", "color": "text"})]


def _requests(site: str, posts: list[tuple[str, dict[str, str]]],
              rng: random.Random) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(method, path, httpx kwargs) of requests that must all be refused with a 4xx."""
    gets, _ = ENDPOINTS[site]
    listing, params = LISTINGS[site]
    while True:
        kind = rng.randrange(6 if posts else 3)
        if kind == 0:
            yield "GET", rng.choice(gets).format(id=rng.choice(BAD_IDS)), {}
        elif kind == 1:
            param = rng.choice(params)
            value = rng.choice(["-1", "0", "abc", "999999", "evil", "\x00", "x" * 300])
            if param == "q" and value in ("-1", "0", "abc", "999999", "evil"):
                value = "\x01"
            yield "GET", listing, {"params": {param: value}}
        elif kind == 2:
            method = rng.choice(["PUT", "PATCH", "DELETE"])
            yield method, rng.choice([listing, "/"]), {}
        else:
            path, fields = rng.choice(posts)
            data = {name: VALID[k] for name, k in fields.items()}
            bad = rng.choice(list(fields))
            pool = {"text": HOSTILE_TEXT, "number": HOSTILE_NUMBER,
                    "choice": HOSTILE_CHOICE}[fields[bad]]
            data[bad] = rng.choice(pool)
            if kind == 3:
                yield "POST", path, {"data": data}
            elif kind == 4:
                yield "POST", path, {"json": data}
            else:
                yield "POST", path, {"content": b"\xff\xfe%%%&&==" * rng.randint(1, 9000),
                                     "headers": {"content-type":
                                                 "application/x-www-form-urlencoded"}}


def _digest(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()
    finally:
        conn.close()


def _hammer(site: str, tmp_path: Path, n: int) -> None:
    templates = ensure_templates()
    template_before = hashlib.sha256(templates[site].read_bytes()).hexdigest()
    store = SessionStore(templates, tmp_path / "sessions")
    client = TestClient(app_for(site, store), raise_server_exceptions=True,
                        follow_redirects=False)
    client.cookies.set("wa_session", SID)
    if site in ACCOUNTS:
        user, password = ACCOUNTS[site]
        assert client.post("/login", data={"username": user, "password": password}
                           ).status_code == 303
    posts = _gitlab_posts(client) if site == "gitlab" else ENDPOINTS[site][1]
    before = _digest(store.path(SID, site))
    rng = random.Random(f"hostile-{site}")
    statuses: dict[int, int] = {}
    for i, (method, path, kwargs) in zip(range(n), _requests(site, posts, rng), strict=False):
        resp = client.request(method, path, **kwargs)
        statuses[resp.status_code] = statuses.get(resp.status_code, 0) + 1
        assert 400 <= resp.status_code < 500, (i, method, path, kwargs, resp.status_code)
        assert "<script>alert" not in resp.text and "<img src=x" not in resp.text
    assert sum(statuses.values()) == n
    assert _digest(store.path(SID, site)) == before
    assert hashlib.sha256(templates[site].read_bytes()).hexdigest() == template_before


@pytest.mark.parametrize("site", SITES)
def test_site_refuses_malformed_and_hostile_requests(site: str, tmp_path: Path) -> None:
    _hammer(site, tmp_path, 150)


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES)
def test_site_survives_1000_malformed_and_hostile_requests(site: str, tmp_path: Path) -> None:
    _hammer(site, tmp_path, 1000)


def test_markup_in_search_is_escaped(tmp_path: Path) -> None:
    store = SessionStore(ensure_templates(), tmp_path / "s")
    client = TestClient(app_for("shopping", store))
    page = client.get("/search", params={"q": "<script>alert(1)</script>"})
    assert page.status_code == 200
    assert "<script>alert(1)" not in page.text and "&lt;script&gt;" in page.text


def test_forged_login_cookie_and_session_id_are_ignored(tmp_path: Path) -> None:
    store = SessionStore(ensure_templates(), tmp_path / "s")
    client = TestClient(app_for("shopping", store), follow_redirects=False)
    client.cookies.set("wa_login_shopping", "alex.morgan@shop.test|" + "0" * 32)
    client.cookies.set("wa_session", "../../etc")
    assert client.get("/cart").status_code == 303  # sent to the login page
    assert store.sessions() == []
