"""An agent built on LangChain (``langchain-openai``'s ``ChatOpenAI.bind_tools``) and the MCP SDK.

Written as a LangChain user would: the chat model reads ``OPENAI_BASE_URL``/``OPENAI_API_KEY``;
the tools come from the MCP server at ``AGENTGYM_MCP_URL``; the loop feeds ``ToolMessage``s back
until the env says the episode is done.

    python tests/gateway/agents/langchain_mcp_agent.py [MAX_TURNS]
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langchain_openai import ChatOpenAI
from mcp import Client


def _tool(tool: Any) -> dict[str, Any]:
    schema = dict(tool.input_schema)
    props = {k: v for k, v in schema.get("properties", {}).items() if k != "episode_id"}
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description or "",
        "parameters": {"type": "object", "properties": props,
                       "required": [r for r in schema.get("required", []) if r != "episode_id"]}}}


async def main(max_turns: int) -> None:
    """Play the task in ``AGENTGYM_TASK_ID``."""
    async with Client(os.environ["AGENTGYM_MCP_URL"], read_timeout_seconds=120) as mcp:
        tools = [_tool(t) for t in (await mcp.list_tools()).tools if t.name != "reset"]
        llm = ChatOpenAI(model="agentgym", max_retries=0, timeout=600).bind_tools(tools)
        first = await mcp.call_tool("reset", {"task_id": os.environ["AGENTGYM_TASK_ID"]})
        episode = first.structured_content["episode_id"]
        history: list[Any] = [HumanMessage(first.content[0].text)]
        if mcp.instructions:
            history.insert(0, SystemMessage(mcp.instructions))
        for _ in range(max_turns):
            reply = await llm.ainvoke(history)
            history.append(reply)
            if not reply.tool_calls:
                history.append(HumanMessage("Call one of the tools."))
                continue
            for call in reply.tool_calls:
                result = await mcp.call_tool(call["name"], {**call["args"], "episode_id": episode})
                text = result.content[0].text if result.content else ""
                history.append(ToolMessage(text, tool_call_id=call["id"]))
                if (result.structured_content or {}).get("done"):
                    return


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 4)
