"""Attacks between MCP-over-HTTP clients, and from web pages, on ``agentgym serve --mcp``.

Before the fix, clients that omitted ``episode_id`` shared one ``"default"`` episode: client B
acted in and ended A's episode, and could act in A's named episode by naming it.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from mcp import Client
from serve.servers import ThreadServer

JSON_RPC = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "attacker", "version": "0"}}}


@pytest.fixture(scope="module")
def mcp_url() -> Iterator[str]:
    """A streamable-HTTP MCP server of ``arith/add-v0`` on a loopback port."""
    from agentgym.serve import create_mcp_server

    server = ThreadServer(create_mcp_server("arith/add-v0", max_episodes=8).http_app())
    server.start()
    yield server.url + "/mcp"
    server.stop()


def _answer(text: str) -> str:
    a, b = (int(x) for x in text.split("Compute ")[1].split(".")[0].split(" + "))
    return str(a + b)


async def _solve(client: Client, text: str, **episode: str):
    tool = (await client.list_tools()).tools
    name = next(t.name for t in tool if t.name != "reset")
    prop = next(iter(k for k in next(t for t in tool if t.name == name).input_schema["properties"]
                     if k != "episode_id"))
    return await client.call_tool(name, {prop: _answer(text), **episode})


async def _wrong(client: Client, **episode: str):
    tool = (await client.list_tools()).tools
    name = next(t.name for t in tool if t.name != "reset")
    prop = next(iter(k for k in next(t for t in tool if t.name == name).input_schema["properties"]
                     if k != "episode_id"))
    return await client.call_tool(name, {prop: "-1", **episode})


async def test_a_client_without_episode_id_cannot_act_in_another_clients_episode(mcp_url):
    async with Client(mcp_url) as a, Client(mcp_url) as b:
        first = await a.call_tool("reset", {"seed": 4})
        assert not first.is_error
        hijack = await _wrong(b)  # no episode_id: once the shared "default" episode
        assert hijack.is_error and "episode_id" in hijack.content[0].text
        episode = first.structured_content["episode_id"]
        solved = await _solve(a, first.content[0].text, episode_id=episode)
    assert not solved.is_error, solved.content[0].text
    assert solved.structured_content["reward"] == 1.0


async def test_a_client_cannot_act_in_another_clients_named_episode(mcp_url):
    async with Client(mcp_url) as a, Client(mcp_url) as b:
        first = await a.call_tool("reset", {"seed": 5, "episode_id": "mine"})
        assert first.structured_content["episode_id"] != "mine"  # an unguessable id is minted
        hijack = await _wrong(b, episode_id="mine")
        assert hijack.is_error
        again = await b.call_tool("reset", {"seed": 6, "episode_id": "mine"})
        assert again.structured_content["episode_id"] != first.structured_content["episode_id"]
        solved = await _solve(a, first.content[0].text,
                              episode_id=first.structured_content["episode_id"])
    assert solved.structured_content["reward"] == 1.0


async def test_legacy_sessions_do_not_share_names(mcp_url):
    async with Client(mcp_url, mode="legacy") as a, Client(mcp_url, mode="legacy") as b:
        first = await a.call_tool("reset", {"seed": 7})
        hijack = await _wrong(b)
        assert hijack.is_error and "reset" in hijack.content[0].text
        named = await a.call_tool("reset", {"seed": 8, "episode_id": "x"})
        assert (await _wrong(b, episode_id="x")).is_error  # b has no episode named x
        solved = await _solve(a, named.content[0].text, episode_id="x")
        assert solved.structured_content["reward"] == 1.0
        solved = await _solve(a, first.content[0].text)
        assert solved.structured_content["reward"] == 1.0


def test_a_web_page_cannot_reach_the_mcp_server(mcp_url):
    port = mcp_url.split(":")[2].split("/")[0]
    foreign = httpx.post(mcp_url, json=INIT, headers={**JSON_RPC, "Origin": "http://evil.example"})
    assert foreign.status_code == 403
    rebind = httpx.post(mcp_url, json=INIT, headers={**JSON_RPC, "Host": f"evil.example:{port}"})
    assert rebind.status_code == 421
    plain = httpx.post(mcp_url, content=b"{}", headers={**JSON_RPC, "content-type": "text/plain"})
    assert plain.status_code in (400, 415)
    chunks = (b" " * 65536 for _ in range(200))  # 12.5 MiB without Content-Length
    try:
        big = httpx.post(mcp_url, content=chunks, headers=JSON_RPC, timeout=60).status_code
    except httpx.HTTPError:  # the server closed while the client was still writing
        big = 413
    assert big == 413


def test_a_token_protects_the_mcp_server():
    from agentgym.serve import create_mcp_server
    from agentgym.serve.guard import GuardSettings

    app = create_mcp_server("arith/add-v0").http_app(guard=GuardSettings(token="s3cret"))
    server = ThreadServer(app)
    server.start()
    try:
        url = server.url + "/mcp"
        assert httpx.post(url, json=INIT, headers=JSON_RPC).status_code == 401
        wrong = {**JSON_RPC, "authorization": "Bearer nope"}
        assert httpx.post(url, json=INIT, headers=wrong).status_code == 401
        right = {**JSON_RPC, "authorization": "Bearer s3cret"}
        assert httpx.post(url, json=INIT, headers=right).status_code == 200
    finally:
        server.stop()
