"""An MCP client (the official SDK) solving a SQL task through ``agentgym serve sql --mcp``.

    python examples/mcp_sql_client.py

The server runs over stdio as a child process. The client lists the tools, calls ``reset`` for a
task and then plays the scripted expert's tool calls (a model would choose them instead).
"""

from __future__ import annotations

import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

import agentgym
from agentgym.rollout import env_expert_actions


async def main() -> None:
    """Solve the first SQL task over MCP and print the exchange."""
    local = agentgym.make("sql")  # only to read the expert's answer for the demo
    task_id = local.unwrapped.task_set.ids()[0]
    local.reset(options={"task_id": task_id})
    calls = env_expert_actions(local)
    local.close()
    server = StdioServerParameters(command=sys.executable,
                                   args=["-m", "agentgym.cli", "serve", "sql", "--mcp"])
    async with Client(server, read_timeout_seconds=120) as client:
        tools = (await client.list_tools()).tools
        print("tools:", [t.name for t in tools])
        first = await client.call_tool("reset", {"task_id": task_id})
        print(first.content[0].text.splitlines()[-1])
        for call in calls:
            result = await client.call_tool(call.name, call.arguments)
            print(f"{call.name}({call.arguments}) -> {result.content[0].text.splitlines()[0]}")
        print("reward:", result.structured_content["reward"])


if __name__ == "__main__":
    anyio.run(main)
