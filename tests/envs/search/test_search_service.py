"""The /retrieve service: Search-R1's contract, limits with clear 4xx, batching, loopback."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

import agentgym
from agentgym.envs.search.retrievers import RemoteRetriever, RetrieverError, RetrieverUnavailable
from agentgym.envs.search.retrievers.bm25 import BM25Retriever
from agentgym.envs.search.service import create_app, is_loopback, serve, serve_corpus


@pytest.fixture(scope="module")
def retriever(small_corpus):
    return BM25Retriever(small_corpus.passages)


@pytest.fixture()
def client(retriever):
    with TestClient(create_app(retriever, max_batch=64), base_url="http://127.0.0.1") as c:
        yield c


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def live_url(retriever):
    """The app under a real uvicorn server on loopback, in a thread."""
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(retriever), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_retrieve_matches_search_r1_shapes(client, small_corpus):
    title = small_corpus.passages[5].title
    body = client.post("/retrieve", json={"queries": [title, "zebra quartz"], "topk": 2,
                                          "return_scores": True}).json()
    first = body["result"][0]
    assert len(first) == 2 and set(first[0]) == {"document", "score"}
    assert first[0]["document"]["contents"].startswith(f'"{title}"\n')
    assert body["result"][1] == []
    plain = client.post("/retrieve", json={"queries": [title], "topk": 1}).json()
    assert set(plain["result"][0][0]) == {"id", "contents"}  # no scores: the documents
    assert client.get(f"/passages/{first[0]['document']['id']}").status_code == 200
    assert client.get("/passages/nope").status_code == 404


@pytest.mark.parametrize("payload, status", [
    ({"queries": "not a list"}, 422),
    ({"queries": [1, 2]}, 422),
    ({"topk": 3}, 422),
    ({"queries": ["x"], "topk": 0}, 422),
    ({"queries": ["x"], "topk": 10_000}, 422),
    ({"queries": ["x" * 5000]}, 422),
    ({"queries": ["x"] * 10_000}, 413),
])
def test_bad_requests_get_a_clear_4xx(client, payload, status):
    r = client.post("/retrieve", json=payload)
    assert r.status_code == status
    assert r.json()["detail"]


def test_malformed_and_oversized_bodies(client):
    assert client.post("/retrieve", content=b"{not json",
                       headers={"content-type": "application/json"}).status_code == 422
    big = b'{"queries": ["' + b"a" * 2_000_000 + b'"]}'
    r = client.post("/retrieve", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.get("/health").json()["status"] == "ok"  # still serving


def test_concurrent_clients_are_batched(live_url, small_corpus):
    titles = [p.title for p in small_corpus.passages[:64]]

    async def main() -> list[list[dict]]:
        async with httpx.AsyncClient(base_url=live_url, timeout=60) as c:
            rs = await asyncio.gather(*(c.post("/retrieve", json={"queries": [t], "topk": 1})
                                        for t in titles))
        return [r.json()["result"][0] for r in rs]

    results = asyncio.run(main())
    assert [r[0]["contents"].split("\n")[0].strip('"') for r in results] == titles
    health = httpx.get(f"{live_url}/health").json()
    assert health["queries"] >= 64 and health["batches"] < 64  # several requests per batch


def test_remote_retriever_and_env_through_the_service(live_url, small_corpus):
    remote = RemoteRetriever(live_url + "/retrieve")
    title = small_corpus.passages[9].title
    hits = remote.search(title, 3)
    assert hits[0].passage.title == title
    assert remote.get(hits[0].doc_id).contents == hits[0].passage.contents
    with pytest.raises(ValueError):
        remote.search("x", 0)
    with pytest.raises(RetrieverError, match="HTTP 422"):
        remote.search("x" * 5000, 1)
    remote.close()


def test_dead_service_aborts_the_episode_not_scored():
    port = _free_port()  # nothing listens there
    env = agentgym.make("search/qa-v0", split="test", service_url=f"http://127.0.0.1:{port}")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        '<tool_call>{"name": "search", "arguments": {"query": "anything"}}</tool_call>')
    assert info["aborted"] and "retrieval service" in info["abort_reason"]
    assert reward == 0.0 and (terminated or truncated)
    env.close()
    with pytest.raises(RetrieverUnavailable):
        RemoteRetriever(f"http://127.0.0.1:{port}").search("x", 1)


def test_loopback_by_default_and_public_bind_refused(retriever):
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.1.2.3")
    with pytest.raises(ValueError, match="allow_public"):
        serve(retriever, host="0.0.0.0", port=_free_port())
    with pytest.raises(ValueError, match="allow-public"):
        serve_corpus(host="0.0.0.0")
