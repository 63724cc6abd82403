"""Attacks on the twin's newer site pages (GitLab profile, tokens, to-dos and merge request
dashboard; the admin panel's invoices, reports, search terms and themes; the storefront's
newsletter subscription).

The apps run in-process over a private session store (the real site code, the real SQLite
copies); the proof of each failed attack is an HTTP status, a token absent from a response, or
a database left unchanged. The last test plays a forged page against the real sites and
Chromium: a status message put in the user page's ``msg`` parameter earns reward 0 on the
official "set my status" template, while the expert (which saves the status) earns 1.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agentgym.envs.webarena.env import ACCOUNTS
from agentgym.envs.webarena.sites.server import app_for
from agentgym.envs.webarena.sites.state import SessionStore, ensure_templates

SID = "attack"


def _client(site: str, tmp_path: Path, login: bool) -> tuple[TestClient, SessionStore]:
    store = SessionStore(ensure_templates(), tmp_path / "sessions")
    client = TestClient(app_for(site, store), follow_redirects=False)
    client.cookies.set("wa_session", SID)
    if login:
        user, password = ACCOUNTS[site]
        assert client.post("/login", data={"username": user, "password": password}
                           ).status_code == 303
    return client, store


def _digest(store: SessionStore, site: str) -> str:
    conn = sqlite3.connect(store.path(SID, site))
    try:
        return hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()
    finally:
        conn.close()


def _feed_token(store: SessionStore) -> str:
    conn = sqlite3.connect(store.path(SID, "gitlab"))
    try:
        return str(conn.execute("SELECT feed_token FROM users WHERE id = 1").fetchone()[0])
    finally:
        conn.close()


def test_gitlab_personal_pages_need_the_login_and_never_show_the_token(tmp_path: Path) -> None:
    client, store = _client("gitlab", tmp_path, login=False)
    token = _feed_token(store)
    before = _digest(store, "gitlab")
    for path in ("/-/profile/personal_access_tokens", "/-/profile", "/dashboard/todos",
                 "/dashboard/merge_requests"):
        resp = client.get(path)
        assert resp.status_code == 303 and resp.headers["location"].startswith("/login")
        assert token not in resp.text
    resp = client.post("/-/profile", data={"status": "Hacked", "website": "https://x.test"})
    assert resp.status_code == 303 and resp.headers["location"].startswith("/login")
    for path in ("/users/byteblaze", "/explore", "/dashboard/todos"):
        assert token not in client.get(path).text
    assert _digest(store, "gitlab") == before


def test_gitlab_profile_refuses_markup_and_oversized_fields(tmp_path: Path) -> None:
    client, store = _client("gitlab", tmp_path, login=True)
    before = _digest(store, "gitlab")
    for data in ({"status": "<script>alert(1)</script>", "website": ""},
                 {"status": "", "website": "<img src=x onerror=alert(1)>"},
                 {"status": "x" * 5000, "website": ""}, {"status": "a\x1bb", "website": ""}):
        resp = client.post("/-/profile", data=data)
        assert resp.status_code == 400, data
        assert "<script>alert" not in resp.text and "<img src=x" not in resp.text
    assert client.post("/-/profile", json={"status": "ok"}).status_code == 400
    assert _digest(store, "gitlab") == before


def test_admin_pages_need_the_login(tmp_path: Path) -> None:
    client, _ = _client("shopping_admin", tmp_path, login=False)
    for path in ("/sales/invoice", "/sales/invoice/5", "/reports", "/reports/search_terms",
                 "/reports/report_sales/sales?from=1/1/22&to=2/1/22", "/themes", "/themes/1"):
        resp = client.get(path)
        assert resp.status_code == 303 and resp.headers["location"].startswith("/login"), path


def test_admin_report_and_invoice_inputs_fail_clearly(tmp_path: Path) -> None:
    client, store = _client("shopping_admin", tmp_path, login=True)
    before = _digest(store, "shopping_admin")
    page = client.get("/reports/report_sales/sales", params={"from": "<b>1/1/22</b>",
                                                             "to": "13/45/22"})
    assert page.status_code == 200 and "Dates must look like" in page.text
    assert "<b>1/1/22" not in page.text and "&lt;b&gt;1/1/22" in page.text
    assert "<th scope=\"col\">Interval" not in page.text
    long = client.get("/reports/report_sales/sales", params={"from": "<script>alert(1)</script>"})
    assert long.status_code == 400 and "<script>alert(1)" not in long.text
    assert client.get("/reports/report_sales/evil").status_code == 404
    assert client.get("/reports/report_sales/sales", params={"from": "\x00"}).status_code == 400
    for q in ("1 OR 1=1", "' OR '1'='1", "-1", "x" * 300):
        resp = client.get("/sales/invoice", params={"q": q})
        assert resp.status_code in (200, 400), q
        if resp.status_code == 200:
            assert "0 records found" in resp.text, q
    for bad in ("0", "abc", "99999999", "-1"):
        assert client.get(f"/sales/invoice/{bad}").status_code == 404
        assert client.get(f"/themes/{bad}").status_code == 404
    assert client.get("/sales/invoice/1").status_code in (200, 404)
    assert _digest(store, "shopping_admin") == before


def test_newsletter_needs_the_login_and_one_of_its_choices(tmp_path: Path) -> None:
    client, store = _client("shopping", tmp_path, login=False)
    before = _digest(store, "shopping")
    resp = client.post("/newsletter/manage", data={"subscribed": "yes"})
    assert resp.status_code == 303 and resp.headers["location"].startswith("/login")
    user, password = ACCOUNTS["shopping"]
    assert client.post("/login", data={"username": user, "password": password}
                       ).status_code == 303
    for choice in ("<script>alert(1)</script>", "yes' OR 1=1 --", "", "YES"):
        resp = client.post("/newsletter/manage", data={"subscribed": choice})
        assert resp.status_code == 400 and "<script>alert" not in resp.text, choice
    assert client.post("/newsletter/manage", json={"subscribed": "yes"}).status_code == 400
    assert _digest(store, "shopping") == before


# -- a forged page against the real sites and Chromium ------------------------------------------


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The bundled sites, private to this module."""
    from agentgym.envs.webarena.sites.server import ensure_sites, stop_sites
    from agentgym.sandboxes.browser import chromium_available

    if not chromium_available():
        pytest.skip("Chromium or Playwright is not installed")
    try:
        metadata.distribution("browsergym-webarenalite")
    except metadata.PackageNotFoundError:
        pytest.skip("browsergym-webarenalite (the [webarena] extra) is not installed")
    folder = tmp_path_factory.mktemp("twin-attack-runtime")
    old = os.environ.get("AGENTGYM_WEBARENA_RUNTIME")
    os.environ["AGENTGYM_WEBARENA_RUNTIME"] = str(folder)
    try:
        ensure_sites(folder)
        yield
    finally:
        stop_sites(folder)
        if old is None:
            os.environ.pop("AGENTGYM_WEBARENA_RUNTIME", None)
        else:
            os.environ["AGENTGYM_WEBARENA_RUNTIME"] = old


async def _play(task_id: str, actions: list[str] | None) -> float:
    """The reward of ``actions`` (the expert's when None) on a ``lite-test`` task."""
    from agentgym.envs.webarena.env import WebArenaEnv

    env = WebArenaEnv("lite-test", prefetch=False)
    try:
        obs, _ = await env.areset(options={"task_id": task_id})
        reward = 0.0
        if actions is None:
            assert env.task is not None
            steps = [lambda text, s=s: s(text) for s in env.expert_actions(env.task) or []]
        else:
            steps = [lambda text, a=a: env.resolve(a) for a in actions]
        for step in steps:
            obs, reward, terminated, _, _ = await env.astep(step(obs["text"]))
            if terminated:
                break
        return reward
    finally:
        await env.aclose()


@pytest.mark.browser
def test_a_status_in_the_message_parameter_does_not_set_my_status(sites: None) -> None:
    from agentgym.envs.webarena.tasks import load_tasks

    task = next(t for t in load_tasks().split("lite-test")
                if t.data["config"]["intent_template_id"] == 361)
    status = task.data["config"]["instantiation_dict"]["status"]
    forged = [f"goto [__GITLAB__/users/byteblaze?msg={status}]", f"stop [{status}]"]
    assert asyncio.run(_play(task.task_id, forged)) == 0.0
    assert asyncio.run(_play(task.task_id, None)) == 1.0
