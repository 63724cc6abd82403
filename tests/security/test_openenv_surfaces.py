"""Attacks on the OpenEnv surfaces: the ``POST /mcp`` route, an exported server, a twin fork.

- ``/mcp`` (OpenEnv's MCP mode) sits behind the serve guard like every route: a page of another
  origin, a rebound Host name and a missing bearer are refused before any session opens.
- An exported OpenEnv folder bound off loopback without a token refuses to start.
- A page that hands the twin's fork snapshot more form state than it copies is not forked from
  a snapshot (the fork falls back to replay), never copied unbounded.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve.servers import app_in_thread

import agentgym
from agentgym.serve import create_app
from agentgym.serve.guard import guard_for

RPC = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create", "params": {}}


@pytest.fixture(scope="module")
def tokened_url():
    app = create_app(["arith/add-v0"], max_sessions=4, guard=guard_for("127.0.0.1", token="s3"))
    with app_in_thread(app) as base:
        yield base


def _sessions(url: str) -> int:
    return int(httpx.get(url + "/health", headers={"Authorization": "Bearer s3"})
               .json()["active_sessions"])


@pytest.mark.parametrize(("headers", "status"), [
    ({"Authorization": "Bearer s3", "Origin": "http://evil.example"}, 403),
    ({"Authorization": "Bearer s3", "Host": "evil.example"}, 421),
    ({}, 401),
    ({"Authorization": "Bearer wrong"}, 401),
])
def test_mcp_route_is_behind_the_guard(tokened_url: str, headers: dict, status: int) -> None:
    before = _sessions(tokened_url)
    reply = httpx.post(tokened_url + "/mcp", json=RPC, headers=headers, timeout=30)
    assert reply.status_code == status
    assert _sessions(tokened_url) == before  # no session was opened for the attacker
    ok = httpx.post(tokened_url + "/mcp", json=RPC, headers={"Authorization": "Bearer s3"},
                    timeout=30).json()
    assert "session_id" in ok["result"]


def test_a_public_bind_without_a_token_refuses_to_start(tmp_path: Path) -> None:
    from agentgym.exporters import export_openenv

    folder = export_openenv("arith", tmp_path / "a")
    done = subprocess.run([sys.executable, "-c", "import server.app"], cwd=folder,
                          env={**os.environ, "AGENTGYM_HOST": "0.0.0.0",
                               "AGENTGYM_SERVE_TOKEN": ""},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "needs $AGENTGYM_SERVE_TOKEN" in done.stderr


class _HostilePage:
    url = "http://127.0.0.1:1/page"

    async def evaluate(self, script: str, *args: Any) -> Any:
        return {"fields": [{"value": "x" * 4096}] * 1024, "scroll": [0, 0]}  # 4 MiB


class _Session:
    pages = [_HostilePage()]
    active = 0

    class context:  # noqa: N801 -- stands in for a BrowserContext
        @staticmethod
        async def cookies() -> list[dict[str, Any]]:
            return []

    @staticmethod
    async def guard(awaitable: Any) -> Any:
        return await awaitable


def test_a_page_cannot_hand_a_fork_unbounded_state() -> None:
    from agentgym.envs.webarena.fork import snapshot

    env = type("Env", (), {"external": False, "session": _Session(), "session_id": "abc",
                           "task": object()})()
    with pytest.raises(agentgym.ForkError, match="larger than a fork copies"):
        asyncio.run(snapshot(env, 1))
