"""``agentgym serve``: argument errors, and a served env reached through ``remote:``."""

from __future__ import annotations

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
        env = make(f"remote:{url}/arith")
        obs, _info = env.reset(options={"task_id": "add-2-3"})
        assert env.step("5")[1] == 1.0
        env.close()
