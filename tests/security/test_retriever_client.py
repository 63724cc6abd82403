"""Attacks on the remote retriever client from a hostile or broken retrieval service.

Before the fix the client had no total deadline and no size cap (one byte every 20 s held a step
150 s; a 400 MB answer was read), and a malformed answer could be scored as the model's failure.
Each hostile service here is a raw socket server on loopback.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

import agentgym
from agentgym.envs.search.retrievers import RemoteRetriever, RetrieverUnavailable


@contextmanager
def hostile_service(answer: Callable[[socket.socket], None]) -> Iterator[str]:
    """A loopback server that reads one request per connection and runs ``answer`` on it."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=_serve_one, args=(conn, answer, stop), daemon=True).start()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(10)
        listener.close()


def _serve_one(conn: socket.socket, answer: Callable[[socket.socket], None],
               stop: threading.Event) -> None:
    with conn:
        conn.settimeout(30)
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        try:
            answer(conn)
        except OSError:  # the client hung up: what we wanted
            pass


def _run_bounded(fn: Callable[[], object], limit_s: float = 90.0) -> BaseException | None:
    """Run ``fn`` in a thread; the error it raised, or fail if it is still running after limit_s."""
    box: list[BaseException | None] = []

    def target() -> None:
        try:
            fn()
            box.append(None)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box.append(e)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(limit_s)
    assert box, f"the client was still waiting after {limit_s}s"
    return box[0]


def test_a_slow_drip_answer_hits_the_total_deadline():
    def drip(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000000\r\n\r\n{")
        for _ in range(600):  # one byte every 0.5 s for 5 minutes
            time.sleep(0.5)
            conn.sendall(b" ")

    with hostile_service(drip) as url:
        client = RemoteRetriever(url, timeout_s=3.0)
        error = _run_bounded(lambda: client.search("x", 1))
        client.close()
    assert isinstance(error, RetrieverUnavailable) and "deadline" in str(error)


def test_a_huge_answer_is_cut_at_the_size_cap():
    sent = 0

    def flood(conn: socket.socket) -> None:
        nonlocal sent
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"10000\r\n" + b" " * 65536 + b"\r\n"
        for _ in range(6400):  # 400 MiB
            conn.sendall(chunk)
            sent += 65536

    with hostile_service(flood) as url:
        client = RemoteRetriever(url, timeout_s=60.0, max_response_bytes=2**20)
        error = _run_bounded(lambda: client.search("x", 1))
        client.close()
    assert isinstance(error, RetrieverUnavailable) and "bytes" in str(error)
    assert sent < 100 * 2**20


@pytest.mark.parametrize("body", [
    {"result": "not a list"},
    {"result": [[{"document": {"contents": "no id"}, "score": 1.0}]]},
    {"result": [[{"document": {"id": "a", "contents": "x"}, "score": "high"}]]},
    {"result": []},  # one list per query is owed
    {"result": [[{"document": {"id": ["a"], "contents": {"x": 1}}, "score": 1}]]},
    ["not", "an", "object"],
])
def test_a_malformed_answer_aborts_the_episode_not_scored(body):
    payload = json.dumps(body).encode()

    def reply(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(payload)).encode() + b"\r\nConnection: close\r\n\r\n" + payload)

    with hostile_service(reply) as url:
        env = agentgym.make("search/qa-v0", split="test", service_url=url)
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step(
            '<tool_call>{"name": "search", "arguments": {"query": "anything"}}</tool_call>')
        env.close()
    assert info.get("aborted"), obs["text"]
    assert "malformed" in info["abort_reason"]
    assert reward == 0.0 and (terminated or truncated)


def test_a_malformed_passage_answer_aborts_the_episode():
    payload = b'{"id": "d1", "contents": ["not text"]}'

    def reply(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(payload)).encode() + b"\r\nConnection: close\r\n\r\n" + payload)

    with hostile_service(reply) as url:
        with pytest.raises(RetrieverUnavailable, match="malformed"):
            RemoteRetriever(url).get("d1")
