"""OpenEnv's ``POST /mcp`` (its MCP mode) on agentgym's server: JSON-RPC sessions and tool
calls that are env steps, errors as JSON-RPC errors, and openenv-core's own MCPToolClient."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

import agentgym
from agentgym.serve.http import create_app

from .servers import app_in_thread

PEER_PYTHON = Path(__file__).resolve().parents[2] / ".venv-openenv" / "bin" / "python"


@pytest.fixture(scope="module")
def shop_url():
    with app_in_thread(create_app("shop/price-v0", max_sessions=4,
                                  env_kwargs={"split": "test"})) as url:
        yield url


def _rpc(url: str, method: str, **params) -> dict:
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    reply = httpx.post(f"{url}/mcp", json=body, timeout=60).json()
    assert reply["jsonrpc"] == "2.0" and reply["id"] == 7
    return reply


def _expert(seed: int) -> tuple[str, list[dict]]:
    env = agentgym.make("shop/price-v0", split="test")
    env.reset(seed=seed)
    task = env.unwrapped.task
    names = {"lookup": "item", "calc": "expression", "answer": "value"}
    calls = []
    for action in env.unwrapped.expert_actions(task):  # lookup(pen), calc(2*7), answer(14)
        name, arg = action.rstrip(")").split("(", 1)
        calls.append({"name": name, "arguments": {names[name]: arg}})
    env.close()
    return task.task_id, calls


def test_a_session_plays_an_episode_by_tool_calls(shop_url: str) -> None:
    task_id, calls = _expert(3)
    created = _rpc(shop_url, "openenv/session/create", task_id=task_id)["result"]
    sid = created["session_id"]
    assert "cost" in created["observation"]
    tools = {t["name"]: t for t in _rpc(shop_url, "tools/list", session_id=sid)["result"]["tools"]}
    assert {"reset", "lookup", "calc", "answer"} <= set(tools)
    assert tools["lookup"]["input_schema"]["type"] == "object"
    results = [_rpc(shop_url, "tools/call", session_id=sid, name=c["name"],
                    arguments=c["arguments"])["result"] for c in calls]
    assert [r["data"]["done"] for r in results] == [False] * (len(calls) - 1) + [True]
    assert results[-1]["data"]["reward"] == 1.0 and results[-1]["data"]["terminated"]
    assert results[0]["content"][0]["text"] == results[0]["data"]["observation"]
    ended = _rpc(shop_url, "tools/call", session_id=sid, name="lookup", arguments={"item": "x"})
    assert ended["error"]["code"] == -32000 and "reset" in ended["error"]["message"]
    again = _rpc(shop_url, "tools/call", session_id=sid, name="reset",
                 arguments={"task_id": task_id})["result"]
    assert again["data"]["done"] is False  # a new episode in the same session
    wrong = _rpc(shop_url, "tools/call", session_id=sid, name="answer",
                 arguments={"value": "-1"})["result"]
    assert wrong["data"]["done"] and wrong["data"]["reward"] == 0.0
    assert _rpc(shop_url, "openenv/session/close", session_id=sid)["result"]["closed"]


@pytest.mark.parametrize(("body", "code"), [
    (b"{not json", -32700),
    (b"[1, 2]", -32600),
    (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "nope", "params": {}}).encode(), -32601),
    (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": []}).encode(),
     -32602),
    (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode(),
     -32602),
    (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                 "params": {"session_id": "nobody"}}).encode(), -32000),
    (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create",
                 "params": {"seed": -3}}).encode(), -32602),
])
def test_bad_requests_are_json_rpc_errors(shop_url: str, body: bytes, code: int) -> None:
    reply = httpx.post(f"{shop_url}/mcp", content=body,
                       headers={"content-type": "application/json"}, timeout=30)
    assert reply.status_code == 200 and reply.json()["error"]["code"] == code


@pytest.mark.skipif(not PEER_PYTHON.exists(), reason="no .venv-openenv")
def test_openenv_cores_mcp_tool_client(shop_url: str) -> None:
    task_id, calls = _expert(5)
    code = ("import asyncio, json, sys\n"
            "from openenv.core.mcp_client import MCPToolClient\n"
            "async def main():\n"
            "    env = MCPToolClient(base_url=sys.argv[1])\n"
            "    env.use_production_mode = True\n"
            "    tools = [t.name for t in await env.list_tools()]\n"
            "    out = [await env.call_tool(c['name'], **c['arguments'])\n"
            "           for c in json.loads(sys.argv[2])]\n"
            "    await env.close()\n"
            "    print(json.dumps({'tools': tools, 'last': out[-1]}))\n"
            "asyncio.run(main())\n")
    done = subprocess.run([str(PEER_PYTHON), "-c", code, shop_url, json.dumps(calls)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"lookup", "calc", "answer"} <= set(result["tools"])
    # the client's session starts on a task drawn by the server; the reward is that task's
    assert result["last"]["done"] is True and result["last"]["reward"] in (0.0, 1.0)
