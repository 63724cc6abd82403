"""The episode's network log on the bundled sites in real Chromium, its bounds, and its panel in
the trajectory viewer (rendered in Chromium)."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentgym.envs.webarena import netlog
from agentgym.envs.webarena.env import WebArenaEnv
from agentgym.envs.webarena.netlog import NetLog
from agentgym.envs.webarena.tasks import load_tasks
from agentgym.envs.webarena.verified_client import VerifiedScorer, available, worker_python
from agentgym.rollout.trajectory import Trajectory
from agentgym.rollout.viewer import write_viewer
from agentgym.sandboxes.browser import BrowserPool, NetworkPolicy


def mutating_task() -> str:
    """A task whose expert submits a form (a POST)."""
    for task in load_tasks().split("test"):
        if task.data["config"]["intent_template_id"] == 205:
            return task.task_id
    raise LookupError(205)


async def expert_episode(task_id: str) -> dict[str, Any]:
    env = WebArenaEnv(split="test")
    try:
        obs, _ = await env.areset(options={"task_id": task_id})
        assert env.task is not None
        for step in env.expert_actions(env.task) or []:
            obs, _, terminated, _, info = await env.astep(step(obs["text"]))
            if terminated:
                return info
        raise AssertionError("the expert never stopped")
    finally:
        await env.aclose()


@pytest.mark.browser
@pytest.mark.usefixtures("needs_chromium", "site_server")
def test_an_episode_keeps_every_request_in_the_packages_format() -> None:
    info = asyncio.run(expert_episode(mutating_task()))
    log = info["network_log"]
    assert info["success"] and info["network_log_dropped"] == 0
    for entry in log:  # what webarena-verified's NetworkEvent reads
        assert {"method", "url", "headers"} <= set(entry["request"])
        assert {"status", "headers", "redirectURL"} <= set(entry["response"])
    navigations = [e for e in log if {"name": "sec-fetch-mode", "value": "navigate"}
                   in e["request"]["headers"]]
    assert navigations and navigations[0]["response"]["status"] == 200
    posts = [e for e in log if e["request"]["method"] == "POST"]
    assert posts and all(e["request"]["postData"]["text"] for e in posts)
    assert any(e["response"]["redirectURL"] for e in posts), [e["response"] for e in posts]
    if available():  # the package loads it as a network trace
        worker = VerifiedScorer(worker_python())
        try:
            reply = worker.score(44, '{"task_type": "NAVIGATE", "status": "SUCCESS"}', log,
                                 {"gitlab": log[0]["request"]["url"]})
        finally:
            worker.close()
        assert reply["ok"] and reply["status"] != "error", reply


def test_the_log_is_bounded_and_counts_what_it_drops(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netlog, "MAX_ENTRIES", 3)
    log = NetLog()
    entry = {"request": {"method": "GET", "url": "http://x/", "headers": []},
             "response": {"status": 200, "headers": [], "redirectURL": ""}}
    for _ in range(5):
        log.add(entry)
    assert len(log.entries) == 3 and log.dropped == 2
    monkeypatch.setattr(netlog, "MAX_BYTES", 10)
    log.clear()
    log.add(entry)
    assert log.entries == [] and log.dropped == 1 and log.har()["log"]["_dropped"] == 1


def test_cookies_are_read_from_set_cookie_lines() -> None:
    assert netlog._cookies("a=1; Path=/\nb=x%20y; HttpOnly\n=bad\nnovalue") == [
        {"name": "a", "value": "1"}, {"name": "b", "value": "x%20y"}]


async def _render(url: str) -> tuple[str, int]:
    async with BrowserPool(max_browsers=1) as pool:
        session = await pool.new_session(NetworkPolicy())
        await session.context.unroute_all()  # the viewer is a file:// page
        await session.page.goto(url)
        text = await session.page.inner_text("details.netlog")
        rows = await session.page.locator("details.netlog tr").count()
        scripts = await session.page.locator("details.netlog script").count()
        await session.aclose()
    return text, rows - 1 + scripts * 1000


@pytest.mark.browser
@pytest.mark.usefixtures("needs_chromium", "site_server")
def test_the_viewer_shows_the_network_log(tmp_path: Path) -> None:
    info = asyncio.run(expert_episode(mutating_task()))
    hostile = {"request": {"method": "GET", "url": "http://x/<script>alert(1)</script>",
                           "headers": []}, "response": {"status": 200, "redirectURL": ""}}
    info["network_log"].append(hostile)
    traj = Trajectory(task_id="t", env_id="web/webarena-lite-v0", messages=[
        {"role": "user", "content": "obs"}], info=info, terminated=True)
    write_viewer(tmp_path, [traj])
    page = next(tmp_path.glob("0000_*.html"))
    text, rows = asyncio.run(_render(page.as_uri()))
    assert rows == len(info["network_log"])  # one row a request, no script from the log
    assert f"{rows} requests" in text and "POST" in text and "<script>" in text
    post = next(e for e in info["network_log"] if e["request"]["method"] == "POST")
    assert post["request"]["url"] in text and post["response"]["redirectURL"] in text


class _Pages(BaseHTTPRequestHandler):
    """Page n posts to /save/n with a synchronous request while it loads."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 -- http.server's names
        n = self.path.strip("/")
        body = (f"<html><body>page {n}<script>var x = new XMLHttpRequest();"
                f"x.open('POST', '/save/{n}', false);"
                f"x.setRequestHeader('content-type', 'application/json');"
                f"x.send(JSON.stringify({{n: {json.dumps(n)}}}));</script></body></html>")
        self._reply(200, body.encode(), "text/html")

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self._reply(201, b'{"saved": true}', "application/json")

    def _reply(self, status: int, body: bytes, mime: str) -> None:
        self.send_response(status)
        self.send_header("content-type", mime)
        self.send_header("set-cookie", "seen=1; Path=/")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.browser
@pytest.mark.usefixtures("needs_chromium")
def test_requests_of_a_page_left_at_once_keep_their_raw_headers() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    async def main() -> NetLog:
        log = NetLog()
        async with BrowserPool(max_browsers=1) as pool:
            session = await pool.new_session(NetworkPolicy([base]))
            log.attach(session.context)
            for n in range(12):  # each page is left as soon as it has loaded
                await session.page.goto(f"{base}/{n}", wait_until="load")
            await log.flush()
            log.detach()
            await session.aclose()
        return log

    try:
        log = asyncio.run(main())
    finally:
        server.shutdown()
        server.server_close()
    posts = [e for e in log.entries if e["request"]["method"] == "POST"]
    assert log.dropped == 0 and len(posts) == 12
    for entry in posts:
        names = {h["name"] for h in entry["request"]["headers"]}
        assert {"origin", "content-type"} <= names, names
        assert entry["response"]["status"] == 201
        assert json.loads(entry["response"]["content"]["text"]) == {"saved": True}
    later = [e for e in posts if e["request"]["url"] != f"{base}/save/0"]
    assert all({"name": "cookie", "value": "seen=1"} in e["request"]["headers"] for e in later)
