"""``agentgym serve``: argument errors, and a served env reached through ``remote:``."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agentgym import make
from agentgym.cli import app

from .servers import server_process


def test_serve_needs_one_mode_and_a_known_env():
    runner = CliRunner()
    both = runner.invoke(app, ["serve", "arith", "--mcp", "--http"])
    assert both.exit_code == 1 and "exactly one of --mcp and --http" in both.output
    unknown = runner.invoke(app, ["serve", "no-such-env", "--http"])
    assert unknown.exit_code == 1 and "no environment registered" in unknown.output


def test_serve_http_command_serves_a_remote_env():
    with server_process("serve", "arith", "--http", module="agentgym.cli") as (url, _):
        env = make(f"remote:{url}/arith", split="train")  # the server's default: test
        obs, _info = env.reset(options={"task_id": "add-2-3"})
        assert env.step("5")[1] == 1.0
        env.close()


def _interrupt_mid_request(cmd: list[str], port: int, websocket: bool) -> tuple[int, str]:
    """Start ``cmd``, leave a request half-sent and a WebSocket open, press Ctrl-C."""
    import contextlib
    import json
    import signal
    import socket
    import subprocess

    from interrupting import _default_sigint
    from websockets.sync.client import connect

    from .servers import wait_healthy

    # the default SIGINT action, as a terminal gives it: a job started by a non-interactive
    # shell's ``&`` (CI runners, nohup) inherits SIGINT ignored, and Ctrl-C would never arrive
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/health", 120)
        with contextlib.ExitStack() as open_connections:
            slow = open_connections.enter_context(
                socket.create_connection(("127.0.0.1", port), timeout=30))
            slow.sendall(b"POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 100\r\n\r\n{\"se")  # never ends
            if websocket:
                ws = open_connections.enter_context(
                    connect(f"ws://127.0.0.1:{port}/ws", open_timeout=30))
                ws.send(json.dumps({"type": "reset", "data": {}}))
                ws.recv(timeout=30)
            proc.send_signal(signal.SIGINT)
            _out, err = proc.communicate(timeout=120)
        return proc.returncode, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_ctrl_c_stops_serve_with_one_line():
    import sys

    from .servers import free_port

    port = free_port()
    code, err = _interrupt_mid_request(
        [sys.executable, "-m", "agentgym.cli", "serve", "arith", "--http", "--port", str(port)],
        port, websocket=True)
    assert "Traceback" not in err and "CancelledError" not in err, err
    assert err.strip().splitlines()[-1] == "stopped serving (Ctrl-C)"
    assert code == 130


@pytest.mark.slow  # builds the bundled index first: about 20 s on a busy machine
def test_ctrl_c_stops_serve_retriever_with_one_line():
    import sys

    from .servers import free_port

    port = free_port()
    code, err = _interrupt_mid_request(
        [sys.executable, "-m", "agentgym.cli", "serve-retriever", "--port", str(port)],
        port, websocket=False)
    assert "Traceback" not in err and "CancelledError" not in err, err
    assert err.strip().splitlines()[-1] == "stopped serving (Ctrl-C)"
    assert code == 130


def test_serve_split_is_served_and_reported():
    import httpx

    with server_process("serve", "arith", "--http", "--split", "test",
                        module="agentgym.cli") as (url, _):
        assert httpx.get(url + "/tasks").json()["split"] == "test"
