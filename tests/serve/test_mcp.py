"""The MCP server, driven by the MCP SDK's own client: it solves a SQL task over stdio and HTTP."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from agentgym import make
from agentgym.rollout import env_expert_actions

from .servers import ThreadServer


@pytest.fixture(scope="module")
def mcp_url() -> Iterator[str]:
    """A streamable-HTTP MCP server of ``sql/spider-lite-v0`` in a thread."""
    from agentgym.serve import create_mcp_server

    server = ThreadServer(create_mcp_server("sql", max_episodes=4).http_app())
    server.start()
    yield server.url + "/mcp"
    server.stop()


def _expert(task_index: int) -> tuple[str, list]:
    env = make("sql")
    task_id = env.unwrapped.task_set.ids()[task_index]
    env.reset(options={"task_id": task_id})
    actions = env_expert_actions(env)
    env.close()
    return task_id, actions


async def test_stdio_client_solves_a_sql_task():
    task_id, actions = _expert(0)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agentgym.serve", "sql", "--mcp"]
    )
    async with Client(params, read_timeout_seconds=60) as client:
        assert "SQL" in (client.instructions or "")
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"reset", "execute_sql", "submit"}
        assert "query" in tools["submit"].input_schema["properties"]
        early = await client.call_tool("submit", {"query": "SELECT 1"})
        assert early.is_error and "reset" in early.content[0].text
        first = await client.call_tool("reset", {"task_id": task_id})
        assert "Database:" in first.content[0].text
        assert first.structured_content["task_id"] == task_id
        for call in actions:
            result = await client.call_tool(call.name, call.arguments)
            assert not result.is_error
        assert result.structured_content["reward"] == 1.0
        assert result.structured_content["terminated"] is True
        assert "correct" in result.content[0].text


async def test_http_clients_play_separate_episodes(mcp_url):
    task_id, actions = _expert(2)
    async with Client(mcp_url) as a, Client(mcp_url) as b:
        ra = await a.call_tool("reset", {"task_id": task_id, "episode_id": "a"})
        rb = await b.call_tool("reset", {"task_id": task_id, "episode_id": "b"})
        assert ra.content[0].text == rb.content[0].text
        ea, eb = (r.structured_content["episode_id"] for r in (ra, rb))
        assert ea.startswith("a.") and eb.startswith("b.")  # the name plus a minted token
        wrong = await b.call_tool("submit", {"query": "SELECT 42", "episode_id": eb})
        for call in actions:
            right = await a.call_tool(call.name, {**call.arguments, "episode_id": ea})
    assert right.structured_content["reward"] == 1.0
    assert wrong.structured_content["reward"] == 0.0 and wrong.structured_content["done"]


async def test_model_mistakes_are_tool_errors_not_crashes(mcp_url):
    async with Client(mcp_url) as client:
        first = await client.call_tool("reset", {"seed": 3, "episode_id": "m"})
        m = first.structured_content["episode_id"]
        bad_args = await client.call_tool("execute_sql", {"sql": "SELECT 1", "episode_id": m})
        assert bad_args.is_error and "query" in bad_args.content[0].text
        unknown = await client.call_tool("drop_tables", {"episode_id": m})
        assert unknown.is_error and "unknown tool" in unknown.content[0].text
        bad_reset = await client.call_tool("reset", {"seed": 1, "nope": 2})
        assert bad_reset.is_error and "nope" in bad_reset.content[0].text
        write = await client.call_tool("execute_sql", {"query": "DROP TABLE x", "episode_id": m})
        assert write.is_error
        ok = await client.call_tool("execute_sql", {"query": "SELECT 1", "episode_id": m})
        assert not ok.is_error and ok.structured_content["done"] is False


async def test_legacy_sessions_need_no_episode_id(mcp_url):
    task_id, actions = _expert(1)
    async with Client(mcp_url, mode="legacy") as client:
        await client.call_tool("reset", {"task_id": task_id})
        for call in actions:
            result = await client.call_tool(call.name, call.arguments)
    assert result.structured_content["reward"] == 1.0


def test_bad_http_requests_get_4xx(mcp_url):
    headers = {"accept": "application/json, text/event-stream",
               "content-type": "application/json"}
    for body in (b"{not json", b"[]", b'{"jsonrpc": "2.0"}'):
        response = httpx.post(mcp_url, content=body, headers=headers, timeout=10)
        assert 400 <= response.status_code < 500, (body, response.status_code)
        assert response.text
    assert httpx.post(mcp_url, content=b"{}", timeout=10).status_code in range(400, 500)
