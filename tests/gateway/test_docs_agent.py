"""docs/gateway.md prints a standalone agent; it is the file the gateway training test runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "tests" / "gateway" / "agents" / "openai_mcp_agent.py"


def test_the_printed_agent_is_the_tested_one():
    text = (ROOT / "docs" / "gateway.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    printed = [b for b in blocks if "from mcp import Client" in b]
    assert printed == [AGENT.read_text(encoding="utf-8")]


def test_the_printed_commands_name_real_options():
    """The ports, transport and variables the docs give are the ones the commands and the agent
    read (a renamed option would leave the recipe broken as printed)."""
    from typer.testing import CliRunner

    from agentgym.cli import app

    text = (ROOT / "docs" / "gateway.md").read_text(encoding="utf-8")
    section = text.split("## A standalone agent", 1)[1].split("```python", 1)[0]
    runner = CliRunner()
    serve_help = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    gateway_help = runner.invoke(app, ["gateway", "--help"], env={"COLUMNS": "200"}).output
    for option in ("--mcp", "--transport", "--port"):
        assert option in section and option in serve_help
    assert "--port" in gateway_help
    agent = AGENT.read_text(encoding="utf-8")
    for variable in re.findall(r"\b(AGENTGYM_[A-Z_]+)=", section):
        assert variable in agent
