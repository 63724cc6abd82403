"""Attacks on ``agentgym serve --http`` over loopback: forged browser requests, bad bodies, frames.

Each attack is made against the real server (uvicorn on a loopback port) and proves its failure
by something the attacker would need: a session that never opens, an HTTP status, a close frame.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest
from serve.servers import app_in_thread
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

EVIL = "http://evil.example"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """A server of ``arith/add-v0`` at the root, on a loopback port."""
    from agentgym.serve import create_app

    app = create_app(["arith/add-v0"], max_sessions=8, idle_timeout_s=600)
    with app_in_thread(app) as base:
        yield base


def _sessions(url: str) -> int:
    return int(httpx.get(url + "/health").json()["active_sessions"])


def _raw_status(url: str, request: bytes) -> tuple[int, bytes]:
    """Send raw bytes to the server; return the status code and the whole answer."""
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def _ws_handshake(url: str, host: str, origin: str | None) -> int:
    extra = f"Origin: {origin}\r\n" if origin else ""
    request = (
        "GET /ws HTTP/1.1\r\n"
        f"Host: {host}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        f"{extra}\r\n"
    ).encode()
    return _raw_status(url, request)[0]


def test_a_web_page_cannot_open_the_websocket(url):
    """A page on any origin opened ws://127.0.0.1:PORT/ws and drove episodes."""
    with pytest.raises(InvalidStatus) as refused:
        with connect(url.replace("http", "ws") + "/ws", origin=EVIL, open_timeout=30) as ws:
            ws.send(json.dumps({"type": "reset", "data": {}}))
            ws.recv(timeout=30)
    assert refused.value.response.status_code == 403
    assert _sessions(url) == 0


def test_dns_rebinding_host_is_refused_on_http_and_websocket(url):
    port = url.rsplit(":", 1)[1]
    response = httpx.post(url + "/reset", json={}, headers={"Host": f"evil.example:{port}"})
    assert response.status_code == 421, response.text
    assert _ws_handshake(url, f"evil.example:{port}", None) == 421
    assert _sessions(url) == 0


def test_a_web_page_cannot_post(url):
    """A page can send text/plain (no CORS preflight) and any Origin; both are refused."""
    plain = httpx.post(url + "/reset", content=b"{}", headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415, plain.text
    form = httpx.post(url + "/reset", data={"a": "1"})
    assert form.status_code == 415
    foreign = httpx.post(url + "/reset", json={}, headers={"Origin": EVIL})
    assert foreign.status_code == 403
    assert _sessions(url) == 0


def test_loopback_origins_and_plain_clients_still_work(url):
    ok = httpx.post(url + "/reset", json={}, headers={"Origin": url})
    assert ok.status_code == 200, ok.text
    session_id = ok.json()["metadata"]["session_id"]
    assert httpx.post(url + "/close", json={"session_id": session_id}).json()["closed"]
    assert _ws_handshake(url, url.split("//")[1], url) == 101


def test_a_chunked_body_over_the_limit_is_refused_unread(url):
    """The limit holds for bodies without Content-Length (chunked), not only declared ones."""
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        chunk = b" " * 65536
        for _ in range(3200):  # 200 MiB if the server reads it all
            sent += len(chunk)
            yield chunk

    try:
        response = httpx.post(url + "/reset", content=body(),
                              headers={"Content-Type": "application/json"}, timeout=60)
        status = response.status_code
    except httpx.HTTPError:  # the server may close before the client stops writing
        status = 413
    assert status == 413
    assert sent < 100 * 2**20
    declared = httpx.post(url + "/reset", content=b" " * (5 * 2**20),
                          headers={"Content-Type": "application/json"})
    assert declared.status_code == 413
    assert _sessions(url) == 0


@pytest.mark.parametrize("body", [
    b"\xff\xfe{\x00\x80\x81",  # not UTF-8
    b"[" * 100_000 + b"]" * 100_000,  # nested past the parser's recursion limit
    b'{"options": ' + b'{"a": ' * 500 + b"1" + b"}" * 501,  # nested deep, parseable
    b'{"seed": 1e999}',
])
def test_malformed_bodies_get_400_without_a_traceback(url, body):
    for path in ("/reset", "/step", "/close"):
        response = httpx.post(url + path, content=body,
                              headers={"Content-Type": "application/json"})
        assert 400 <= response.status_code < 500, (path, response.status_code, response.text)
        assert "Traceback" not in response.text and 'File "' not in response.text
    assert _sessions(url) == 0


def test_a_binary_websocket_frame_gets_a_close_frame_with_a_reason(url):
    with connect(url.replace("http", "ws") + "/ws", open_timeout=30) as ws:
        ws.send(b"\x00\x01binary")
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
    assert closed.value.rcvd is not None, "dropped without a close frame"
    assert closed.value.rcvd.code == 1003 and closed.value.rcvd.reason


@pytest.mark.parametrize("message", [
    "[" * 100_000 + "]" * 100_000,
    json.dumps({"type": "step", "data": [1, 2]}),
    json.dumps({"type": "reset", "data": "x"}),
    json.dumps({"type": ["step"]}),
])
def test_bad_websocket_messages_get_an_error_and_the_connection_lives(url, message):
    with connect(url.replace("http", "ws") + "/ws", open_timeout=30) as ws:
        ws.send(message)
        reply = json.loads(ws.recv(timeout=30))
        assert reply["type"] == "error" and reply["data"]["message"]
        ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
        assert json.loads(ws.recv(timeout=30))["type"] == "observation"


def test_an_oversized_websocket_message_gets_a_close_frame(url):
    with connect(url.replace("http", "ws") + "/ws", open_timeout=30, max_size=None) as ws:
        ws.send(json.dumps({"type": "step", "data": {"content": "x" * (16 * 2**20)}}))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_concurrent_attacks_leave_the_server_serving(url):
    errors: list[BaseException] = []

    def attack() -> None:
        try:
            httpx.post(url + "/reset", content=b"\xff" * 1000,
                       headers={"Content-Type": "application/json"})
        except BaseException as e:  # noqa: BLE001 - collected for the assertion
            errors.append(e)

    threads = [threading.Thread(target=attack) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert httpx.get(url + "/health").json()["status"] == "healthy"
