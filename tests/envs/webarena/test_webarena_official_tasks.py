"""The official task sets load from the installed packages and every Lite task is scoreable.

Fed the reference answers (the answer, the reference URL, pages holding the required contents),
all 165 official WebArena-Lite tasks score 1.0 through the env's evaluators; fed wrong ones,
every task scores 0. The ``func:`` helpers' site lookups go to a stand-in of the shop's REST API
on loopback (token, orders, reviews), and the GitLab member-role script runs in real Chromium
on a page with GitLab's members table.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import agentgym
from agentgym.envs.webarena.evaluators import OR, evaluate
from agentgym.envs.webarena.judges import NormalizedJudge
from agentgym.envs.webarena.official import (
    OfficialTasksMissing,
    load_official,
    official_split,
    read_official,
)
from agentgym.envs.webarena.official_helpers import (
    MEMBER_ROLE_JS,
    SiteHelpers,
    parse_call,
    reddit_get_post_url,
)

LATEST_ORDER = 190


def official(name: str) -> list[dict[str, Any]]:
    try:
        return read_official(name)
    except OfficialTasksMissing as e:
        pytest.skip(str(e))


class ShopApi(BaseHTTPRequestHandler):
    """The shop's REST API as the helpers use it (Magento's token, orders and reviews)."""

    calls: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 -- http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.calls.append(self.path)
        if self.path == "/rest/default/V1/integration/admin/token" and body == {
                "username": "admin", "password": "admin1234"}:
            return self._send(200, "tok")
        self._send(401, {"message": "bad login"})

    def do_GET(self) -> None:  # noqa: N802
        self.calls.append(self.path)
        if self.headers.get("Authorization") != "Bearer tok":
            return self._send(401, {"message": "no token"})
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if url.path == "/rest/V1/orders" and query.get(
                "searchCriteria[sortOrders][0][direction]") == ["DESC"]:
            return self._send(200, {"items": [{"increment_id": f"{LATEST_ORDER:09d}"}]})
        if url.path.startswith("/rest/V1/products/") and url.path.endswith("/reviews"):
            return self._send(200, [{"nickname": "old", "ratings": [{"percent": 20}]},
                                    {"nickname": "Nina", "ratings": [{"percent": 80}]}])
        self._send(404, {"message": "no route"})


@pytest.fixture(scope="module")
def shop_api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ShopApi)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def urls_for(shop: str) -> dict[str, str]:
    return {"__SHOPPING__": shop, "__SHOPPING_ADMIN__": "http://admin.test/admin",
            "__REDDIT__": "http://forum.test", "__GITLAB__": "http://gitlab.test",
            "__MAP__": "http://map.test", "__WIKIPEDIA__": "http://wiki.test"}


def resolved(record: dict[str, Any], shop: str) -> dict[str, Any]:
    text = json.dumps(record)
    for key, value in urls_for(shop).items():
        text = text.replace(key, value)
    return json.loads(text)


def first(alternatives: str) -> str:
    return alternatives.split(OR)[0]


def reference_answer(refs: dict[str, Any] | None) -> str:
    """What an agent that found the answer says: the references, joined."""
    if not refs:
        return ""
    parts: list[str] = []
    for kind, value in refs.items():
        if kind == "exact_match" or value == "N/A":
            return str(value)
        parts += [first(str(v)) for v in (value if isinstance(value, list) else [value])]
    return ", ".join(parts)


def page_text(required: dict[str, Any]) -> str:
    """A page that holds the required contents."""
    if "exact_match" in required:
        return str(required["exact_match"])
    return " | ".join(first(str(v)) for v in next(iter(required.values())))


class StandInPage:
    """The final page at ``url``; each program_html item's page holds ``text_of(item)``."""

    def __init__(self, config: dict[str, Any], final_url: str, shop: str, right: bool) -> None:
        self.final_url, self.pages = final_url, {}
        for item in config["eval"]["program_html"]:
            url = item["url"]
            if url == "last":
                url = final_url
            elif url == "func:shopping_get_latest_order_url()":
                url = f"{shop}/sales/order/view/order_id/{LATEST_ORDER}/"
            elif url.startswith("func:reddit_get_post_url"):
                url = reddit_get_post_url(final_url)
            locator = item["locator"]
            if locator.startswith("func:gitlab_get_project_memeber_role"):
                name = parse_call(locator[5:])[1][1]
                script = MEMBER_ROLE_JS % json.dumps(f"@{name}")
            elif not locator:
                script = ""
            else:
                script = f"() => {locator}"
            self.pages[(url, script)] = page_text(item["required_contents"]) if right \
                else "Nothing here"

    async def current_url(self) -> str:
        return self.final_url

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        url = self.final_url if url == "last" else url
        if (url, script) not in self.pages:
            raise RuntimeError(f"404 {url} {script[:40]}")
        return self.pages[(url, script)]


def final_url(config: dict[str, Any], right: bool) -> str:
    ref = config["eval"].get("reference_url") or ""
    if not right:
        return "http://wrong.test/nowhere"
    url = first(ref) if ref else "http://forum.test/f/books"
    uses_post = any(i["url"].startswith("func:reddit") for i in config["eval"]["program_html"])
    return url.rstrip("/") + "/123/a-post" if uses_post else url


def score_all(shop: str, right: bool) -> dict[int, Any]:
    async def main() -> dict[int, Any]:
        out = {}
        for record in official("webarena-lite"):
            config = resolved(record, shop)
            refs = config["eval"].get("reference_answers")
            answer = reference_answer(refs) if right else "I could not find it, sorry"
            probe = StandInPage(config, final_url(config, right), shop, right)
            out[record["task_id"]] = await evaluate(
                config, answer, probe, NormalizedJudge(), SiteHelpers({"shopping": shop}))
        return out

    return asyncio.run(main())


def test_the_official_sets_load_with_their_ids() -> None:
    lite = official("webarena-lite")
    assert len(lite) == 165 and [r["task_id"] for r in lite] == list(range(165))
    tasks = load_official("webarena-lite")
    assert tasks.splits == {"test": 165} and tasks.get("81").prompt == lite[81]["intent"]
    assert tasks.get("81").data["config"]["old_task_id"] == lite[81]["old_task_id"]
    assert load_official("webarena").splits == {"test": 812}
    verified = load_official("webarena-verified")
    assert verified.splits == {"non-hard": 554, "hard": 258}
    assert len(official_split("webarena-verified", "test")) == 812


def test_reference_answers_score_one_on_all_165_lite_tasks(shop_api: str) -> None:
    ShopApi.calls.clear()
    results = score_all(shop_api, right=True)
    failed = {tid: (r.score, r.error, r.notes) for tid, r in results.items() if r.score != 1.0}
    assert failed == {}
    assert sum(c.startswith("/rest/V1/orders") for c in ShopApi.calls) == 3  # 104, 117, 118...


def test_wrong_answers_score_zero_on_all_165_lite_tasks(shop_api: str) -> None:
    results = score_all(shop_api, right=False)
    assert {tid: r.score for tid, r in results.items() if r.score != 0.0} == {}
    assert not any(r.error for r in results.values())


def test_review_helpers_read_the_latest_review(shop_api: str) -> None:
    helpers = SiteHelpers({"shopping": shop_api})
    author = asyncio.run(helpers.locator("shopping_get_sku_latest_review_author", ["B0"]))
    rating = asyncio.run(helpers.locator("shopping_get_sku_latest_review_rating", ["B0"]))
    assert (author.kind, author.text, rating.text) == ("value", "Nina", "80")


@pytest.mark.browser
@pytest.mark.usefixtures("needs_chromium")
def test_member_role_script_reads_gitlabs_members_table() -> None:
    from agentgym.sandboxes.browser import BrowserPool, NetworkPolicy

    members = ("<table><tr><td data-label='Account'><span class='gl-avatar-labeled-sublabel'>"
               "@{}</span></td><td class='col-max-role'><span>{}</span></td></tr></table>")
    html = members.format("byteblaze", "Owner") + members.format("alice", "Guest")

    async def main() -> list[str]:
        async with BrowserPool() as pool:
            session = await pool.new_session(NetworkPolicy([]))
            try:
                await session.page.set_content(html)
                return [await session.page.evaluate(MEMBER_ROLE_JS % json.dumps(f"@{who}"))
                        for who in ("alice", "byteblaze", "nobody")]
            finally:
                await session.aclose()

    assert asyncio.run(main()) == ["Guest", "Owner", ""]


def test_official_ids_need_sites_and_name_the_extra_when_missing() -> None:
    with pytest.raises(agentgym.MissingExtra, match="WA_"):
        agentgym.make("webarena")

