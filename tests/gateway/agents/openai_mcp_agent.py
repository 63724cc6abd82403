"""An agent program as users write them: the official ``openai`` client and the ``mcp`` SDK.

It knows nothing of agentgym: it reads ``OPENAI_BASE_URL``/``OPENAI_API_KEY`` (the OpenAI client
does) and ``AGENTGYM_MCP_URL``/``AGENTGYM_TASK_ID`` (optional: without it the server draws a
task), lists the MCP tools, calls ``reset``, then loops: ask the model, run the tools it calls
over MCP, send the results back. docs/gateway.md prints this file (a test keeps them equal).

    python tests/gateway/agents/openai_mcp_agent.py [MAX_TURNS]
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
from mcp import Client
from openai import OpenAI


def _schema(tool: Any) -> dict[str, Any]:
    schema = dict(tool.input_schema)
    props = {k: v for k, v in schema.get("properties", {}).items() if k != "episode_id"}
    required = [r for r in schema.get("required", []) if r != "episode_id"]
    return {"type": "object", "properties": props, "required": required}


async def main(max_turns: int) -> None:
    """Play one episode of the task in ``AGENTGYM_TASK_ID``."""
    model = OpenAI(max_retries=0, timeout=600)
    async with Client(os.environ["AGENTGYM_MCP_URL"], read_timeout_seconds=120) as mcp:
        listed = (await mcp.list_tools()).tools
        tools = [{"type": "function", "function": {
            "name": t.name, "description": t.description or "", "parameters": _schema(t)}}
            for t in listed if t.name != "reset"]
        task = os.environ.get("AGENTGYM_TASK_ID")
        first = await mcp.call_tool("reset", {"task_id": task} if task else {})
        episode = first.structured_content["episode_id"]
        messages: list[dict[str, Any]] = [{"role": "user", "content": first.content[0].text}]
        if mcp.instructions:
            messages.insert(0, {"role": "system", "content": mcp.instructions})
        for _ in range(max_turns):
            out = model.chat.completions.create(model="agentgym", messages=messages, tools=tools)
            msg = out.choices[0].message
            messages.append(msg.model_dump(exclude_none=True))
            if not msg.tool_calls:
                messages.append({"role": "user", "content": "Call one of the tools."})
                continue
            for call in msg.tool_calls:
                try:
                    args = json.loads(call.function.arguments or "{}")
                except ValueError:
                    args = {}
                result = await mcp.call_tool(call.function.name, {**args, "episode_id": episode})
                text = result.content[0].text if result.content else ""
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
                if (result.structured_content or {}).get("done"):
                    return


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 4)
