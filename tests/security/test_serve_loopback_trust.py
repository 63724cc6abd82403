"""Attack: loopback is not a trust boundary. A page served on another loopback port (any local
web page) sent ``Origin: http://127.0.0.1:<other port>`` and was let in, because the Origin
check ignored the port; a client that opens a request and never finishes its body held the
connection (and its slot) forever; the gateway ran without a token on loopback, so another local
user could read prompts, post rewards and add branches."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentgym.serve.guard import GuardSettings, RequestGuard
from agentgym.serve.run import access_for


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    message = await receive()
    body = message.get("body", b"")
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok:" + body})


def _scope(origin: str | None, port: int = 8000, host: str = "127.0.0.1") -> dict[str, Any]:
    headers = [(b"host", f"{host}:{port}".encode()), (b"content-type", b"application/json")]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "http", "method": "POST", "path": "/reset", "headers": headers,
            "server": (host, port)}


async def _call(guard: RequestGuard, scope: dict[str, Any], body_chunks: list[bytes] | None = None,
                stall: asyncio.Event | None = None) -> tuple[int, bytes]:
    chunks = list(body_chunks or [b"{}"])
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if chunks:
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks) or bool(
                stall)}
        assert stall is not None
        await stall.wait()  # a client that never sends the rest of its body
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await guard(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


@pytest.mark.parametrize("origin", ["http://127.0.0.1:3000", "http://localhost:8080",
                                   "http://[::1]:1", "http://127.0.0.1"])
async def test_a_page_on_another_loopback_port_is_refused(origin: str) -> None:
    status, _ = await _call(RequestGuard(_app, GuardSettings()), _scope(origin, port=8000))
    assert status == 403


@pytest.mark.parametrize("origin", ["http://127.0.0.1:8000", "http://localhost:8000", None])
async def test_the_servers_own_origin_and_non_browser_clients_pass(origin: str | None) -> None:
    status, body = await _call(RequestGuard(_app, GuardSettings()), _scope(origin, port=8000))
    assert status == 200 and body == b"ok:{}"


async def test_a_configured_origin_list_is_matched_exactly() -> None:
    settings = GuardSettings(allowed_origins=("http://localhost:3000",))
    assert (await _call(RequestGuard(_app, settings), _scope("http://localhost:3000")))[0] == 200
    assert (await _call(RequestGuard(_app, settings), _scope("http://localhost:3001")))[0] == 403
    assert (await _call(RequestGuard(_app, settings), _scope("http://localhost:8000")))[0] == 403


async def test_a_body_that_never_finishes_is_cut_at_the_deadline() -> None:
    guard = RequestGuard(_app, GuardSettings(body_timeout_s=0.2))
    stall = asyncio.Event()
    status, _ = await asyncio.wait_for(_call(guard, _scope(None), [b'{"a":'], stall), 10)
    assert status == 408


def test_the_gateway_gets_a_token_on_loopback_too() -> None:
    access = access_for("127.0.0.1", what="the gateway", require_token=True)
    assert access.generated_token and access.guard.token and len(access.guard.token) >= 32
    assert access_for("127.0.0.1").guard.token is None  # a served env keeps its choice
