"""An agent built on the OpenAI Agents SDK (``openai-agents``): ``Agent``, ``Runner`` and MCP.

Written as an Agents SDK user would: the model is ``OpenAIChatCompletionsModel`` over an
``AsyncOpenAI`` client (which reads ``OPENAI_BASE_URL``/``OPENAI_API_KEY``); the tools are the
env's, from the SDK's ``MCPServerStreamableHttp`` at ``AGENTGYM_MCP_URL``; ``Runner.run`` drives
the loop. Two things this MCP server needs from any client, done with the SDK's own hooks:

- its episodes are named (the current MCP protocol has no sessions): the program calls ``reset``
  itself, hides it from the model (``tool_filter``), and passes the ``episode_id`` it got with
  every tool call (a subclass of the server class, as for any server that needs a fixed
  argument);
- the env says when the episode is over (``done`` in a tool result): ``tool_use_behavior`` ends
  the run there instead of asking the model once more.

The SDK pins ``websockets<17``, so it lives in its own environment
(``scripts/setup_agents_venv.sh`` -> ``.venv-agents``):

    .venv-agents/bin/python tests/gateway/agents/openai_agents_sdk_agent.py [MAX_TURNS]
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from agents import (
    Agent,
    MaxTurnsExceeded,
    OpenAIChatCompletionsModel,
    RunContextWrapper,
    Runner,
    ToolsToFinalOutputResult,
    set_tracing_disabled,
)
from agents.mcp import MCPServerStreamableHttp, create_static_tool_filter
from openai import AsyncOpenAI


class EpisodeServer(MCPServerStreamableHttp):
    """The env's MCP server, with this program's episode id added to every tool call."""

    episode_id = ""
    done = False

    async def call_tool(self, tool_name: str, arguments: dict[str, Any] | None,
                        meta: dict[str, Any] | None = None) -> Any:
        """Call ``tool_name`` in this program's episode; notes when the env says it is over."""
        args = dict(arguments or {})
        if self.episode_id:
            args["episode_id"] = self.episode_id
        result = await super().call_tool(tool_name, args, meta)
        if (result.structured_content or {}).get("done"):
            self.done = True
        return result


async def main(max_turns: int) -> None:
    """Play the task in ``AGENTGYM_TASK_ID``."""
    set_tracing_disabled(True)  # the SDK would otherwise export traces to api.openai.com
    server = EpisodeServer(
        {"url": os.environ["AGENTGYM_MCP_URL"], "timeout": 120, "sse_read_timeout": 600},
        name="env", client_session_timeout_seconds=600, cache_tools_list=True,
        tool_filter=create_static_tool_filter(blocked_tool_names=["reset"]))
    async with server:
        first = await server.call_tool("reset", {"task_id": os.environ["AGENTGYM_TASK_ID"]})
        server.episode_id = first.structured_content["episode_id"]
        # the env's instructions (MCP v2 reports them on the session, v1 in its initialize result)
        init = server.server_initialize_result
        instructions = getattr(server.session, "instructions", None) or (
            init.instructions if init else None)
        client = AsyncOpenAI(max_retries=0, timeout=600)

        def stop_when_done(ctx: RunContextWrapper[Any], results: list[Any]
                           ) -> ToolsToFinalOutputResult:
            return ToolsToFinalOutputResult(is_final_output=server.done,
                                            final_output="done" if server.done else None)

        agent = Agent(
            name="shopper", instructions=instructions,
            model=OpenAIChatCompletionsModel(model="agentgym", openai_client=client),
            mcp_servers=[server], tool_use_behavior=stop_when_done)
        try:
            await Runner.run(agent, first.content[0].text, max_turns=max_turns)
        except MaxTurnsExceeded:
            pass  # the episode ran out of turns: the env's reward says so


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 4))
