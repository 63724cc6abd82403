"""Attacks on the retriever service (``agentgym serve-retriever``) over loopback.

Before the fix its 1 MB body limit read only ``Content-Length``: a 300 MB chunked body was
accepted; it also answered any Host, any Origin and any content type.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from serve.servers import app_in_thread

from agentgym.envs.search.corpus import Passage
from agentgym.envs.search.retrievers.bm25 import BM25Retriever
from agentgym.envs.search.service import create_app, serve_corpus
from agentgym.serve.guard import GuardSettings

JSON = {"Content-Type": "application/json"}


def _retriever() -> BM25Retriever:
    return BM25Retriever([Passage(f"d{i}", f"Title {i}", f"text number {i}") for i in range(20)])


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """The service of a 20-passage BM25 index on a loopback port."""
    with app_in_thread(create_app(_retriever())) as base:
        yield base


def _queries(url: str) -> int:
    return int(httpx.get(url + "/health").json()["queries"])


def test_a_chunked_body_over_the_limit_is_refused_unread(url):
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        yield b'{"queries": ["'
        for _ in range(4800):  # 300 MiB if the service reads it all
            sent += 65536
            yield b"a" * 65536
        yield b'"]}'

    try:
        status = httpx.post(url + "/retrieve", content=body(), headers=JSON,
                            timeout=60).status_code
    except httpx.HTTPError:  # the service closed while the client was still writing
        status = 413
    assert status == 413
    assert sent < 100 * 2**20
    assert _queries(url) == 0


@pytest.mark.parametrize("body", [
    b"\xff\xfe\x00{",
    b"[" * 100_000 + b"]" * 100_000,
    b'{"queries": ' + b"[" * 5000 + b"]" * 5000 + b"}",
])
def test_malformed_bodies_get_4xx_without_a_traceback(url, body):
    response = httpx.post(url + "/retrieve", content=body, headers=JSON)
    assert 400 <= response.status_code < 500, response.text
    assert "Traceback" not in response.text
    assert httpx.get(url + "/health").json()["status"] == "ok"


def test_a_web_page_cannot_query_the_service(url):
    port = url.rsplit(":", 1)[1]
    query = {"queries": ["title"], "topk": 1}
    assert httpx.post(url + "/retrieve", json=query,
                      headers={"Origin": "http://evil.example"}).status_code == 403
    assert httpx.post(url + "/retrieve", json=query,
                      headers={"Host": f"evil.example:{port}"}).status_code == 421
    assert httpx.post(url + "/retrieve", content=b'{"queries": ["x"]}',
                      headers={"Content-Type": "text/plain"}).status_code == 415
    assert _queries(url) == 0
    assert httpx.post(url + "/retrieve", json=query).status_code == 200


def test_a_token_is_required_when_set():
    app = create_app(_retriever(), guard=GuardSettings(allowed_hosts=None, token="t0ken"))
    with app_in_thread(app) as base:
        query = {"queries": ["title"], "topk": 1}
        assert httpx.post(base + "/retrieve", json=query).status_code == 401
        assert httpx.get(base + "/passages/d1").status_code == 401
        ok = httpx.post(base + "/retrieve", json=query, headers={"Authorization": "Bearer t0ken"})
        assert ok.status_code == 200


def test_a_public_bind_needs_allow_public():
    with pytest.raises(ValueError, match="allow-public"):
        serve_corpus(host="0.0.0.0")
