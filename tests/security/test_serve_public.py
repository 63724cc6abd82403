"""A server bound beyond loopback: refused without --allow-public, and then only with the token.

Runs the real ``agentgym serve`` in a child process. Before the fix ``--host 0.0.0.0`` was
accepted with no authentication.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from serve.servers import free_port, stop
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from agentgym import make
from agentgym.serve.guard import TOKEN_ENV


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "agentgym.cli", "serve", *args]


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    env.pop(TOKEN_ENV, None)
    return env


def test_a_public_host_is_refused_without_allow_public():
    port = free_port()
    done = subprocess.run(_cli("arith", "--http", "--host", "0.0.0.0", "--port", str(port)),
                          capture_output=True, text=True, timeout=120, env=_env())
    assert done.returncode != 0
    assert "--allow-public" in done.stderr
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=5)


@contextmanager
def _public_server(*extra: str) -> Iterator[tuple[str, str]]:
    port = free_port()
    proc = subprocess.Popen(
        _cli("arith", "--split", "train", "--http", "--host", "0.0.0.0", "--allow-public",
             "--port", str(port),
             *extra), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        token = ""
        assert proc.stderr is not None
        for line in proc.stderr:  # the token is shown before the server starts
            if line.startswith("bearer token:"):
                token = line.split(":", 1)[1].strip()
                break
        assert len(token) >= 32, "no generated token was shown"
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(url + "/health", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url, token
    finally:
        stop(proc)


def test_a_public_server_needs_its_token_on_http_and_websocket():
    with _public_server() as (url, token):
        assert httpx.get(url + "/health").status_code == 401
        assert httpx.post(url + "/reset", json={}).status_code == 401
        bad = {"Authorization": "Bearer " + "x" * len(token)}
        assert httpx.post(url + "/reset", json={}, headers=bad).status_code == 401
        with pytest.raises(InvalidStatus) as refused:
            with connect(url.replace("http", "ws") + "/ws", open_timeout=30):
                pass
        assert refused.value.response.status_code == 401
        good = {"Authorization": f"Bearer {token}"}
        assert httpx.get(url + "/health", headers=good).json()["active_sessions"] == 0
        with connect(url.replace("http", "ws") + "/ws", open_timeout=30,
                     additional_headers=good) as ws:
            ws.send(json.dumps({"type": "reset", "data": {"task_id": "add-2-3"}}))
            assert json.loads(ws.recv(timeout=30))["type"] == "observation"


def test_remote_env_sends_the_token(monkeypatch):
    with _public_server() as (url, token):
        with pytest.raises(Exception, match="401"):
            make(f"remote:{url}")
        monkeypatch.setenv(TOKEN_ENV, token)
        env = make(f"remote:{url}")
        env.reset(options={"task_id": "add-2-3"})
        assert env.step("5")[1] == 1.0
        env.close()
