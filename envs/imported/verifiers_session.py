"""One episode of a verifiers env in the worker (:mod:`verifiers_worker`, in ``.venv-verifiers``).

A :class:`Session` holds the verifiers ``Trace`` the task's rewards read and the task's tool
servers (its ``Toolset`` methods registered on an in-process MCP server, sharing the episode's
state as verifiers' state channel would). Imports only the standard library and verifiers.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import math
from typing import Any


def _vf() -> Any:
    import verifiers.v1 as vf

    return vf


class Session:
    """One episode: the trace verifiers scores and the task's tool servers, in-process."""

    def __init__(self, loaded: Any, idx: int) -> None:
        vf = _vf()
        from verifiers.v1.state import state_cls
        from verifiers.v1.trace import AgentInfo, TraceTask

        self.task = next(t for t in loaded.tasks if t.data.idx == idx)
        task = self.task
        self.trace = vf.Trace(
            task=TraceTask(type=type(task).__name__, data=task.data, key=task.key,
                           hash=task.hash),
            state=state_cls(type(task))(), agent=AgentInfo(config=vf.AgentConfig()))
        self.toolsets = list(type(task).toolsets(task.config))
        self.shared = list(loaded.taskset.toolsets(loaded.taskset.config))
        self.dispatch: dict[str, tuple[Any, str]] = {}
        self.schemas: list[dict[str, Any]] = []
        self.done = False

    async def open(self) -> None:
        """Set the tool servers up (``setup``, ``setup_task``) and list their tools; the
        prompt becomes the trace's first nodes."""
        from mcp.server.mcpserver import MCPServer
        from verifiers.v1.graph import MessageNode
        from verifiers.v1.mcp.server import _call_state
        from verifiers.v1.utils.decorators import discover_decorated

        for server in self.shared + self.toolsets:
            await server.setup()
        for server in self.toolsets:
            await server.setup_task(self.task)
        for server in self.shared + self.toolsets:
            mcp = MCPServer(server.server_name or type(server).__name__)
            state = (self.trace.state if isinstance(self.trace.state, server._state_cls)
                     else server._state_cls())
            for fn in discover_decorated(server, "tool"):
                mcp.add_tool(_with_state(fn, state, _call_state),
                             name=getattr(fn, "tool_name", None) or fn.__name__,
                             description=(fn.__doc__ or "").strip() or None)
            for tool in await mcp.list_tools():
                full = f"{server.server_name}_{tool.name}" if server.server_name else tool.name
                self.dispatch[full] = (mcp, tool.name)
                self.schemas.append({"type": "function", "function": {
                    "name": full, "description": tool.description or "",
                    "parameters": tool.input_schema}})
        vf = _vf()
        data = self.task.data
        prompt = data.prompt
        messages = ([vf.UserMessage(content=prompt)] if isinstance(prompt, str)
                     else list(prompt or []))
        if data.system_prompt:
            messages.insert(0, vf.SystemMessage(content=data.system_prompt))
        tools = [vf.Tool(name=s["function"]["name"], description=s["function"]["description"],
                         parameters=s["function"]["parameters"]) for s in self.schemas]
        for i, message in enumerate(messages):
            self.trace.nodes.append(MessageNode(parent=i - 1 if i else None, message=message,
                                                tools=tools if i == 0 else []))

    def _append(self, message: Any, sampled: bool = False) -> None:
        from verifiers.v1.graph import MessageNode

        parent = len(self.trace.nodes) - 1 if self.trace.nodes else None
        self.trace.nodes.append(MessageNode(parent=parent, message=message, sampled=sampled))

    async def step(self, content: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
        """One model message: run its tool calls, or end and score the episode."""
        vf = _vf()
        if self.done:
            raise ValueError("the episode has ended")
        tool_calls = [vf.ToolCall(id=str(c.get("id") or f"call_{i}"), name=str(c["name"]),
                                  arguments=json.dumps(c.get("arguments") or {}))
                      for i, c in enumerate(calls)]
        self._append(vf.AssistantMessage(content=content, tool_calls=tool_calls or None),
                     sampled=True)
        results = []
        for call, raw in zip(tool_calls, calls, strict=True):
            text, is_error = await self._call(call.name, raw.get("arguments"))
            self._append(vf.ToolMessage(tool_call_id=call.id, content=text, name=call.name))
            results.append({"id": call.id, "name": call.name, "content": text,
                            "is_error": is_error})
        stop = await self._stops() if tool_calls else "no_tool_calls"
        reply: dict[str, Any] = {"ok": True, "results": results, "done": stop is not None,
                                 "stop": stop}
        if stop is not None:
            reply.update(await self._score(stop))
        return reply

    async def _call(self, name: str, arguments: Any) -> tuple[str, bool]:
        if name not in self.dispatch:
            return f"Error: unknown tool {name!r}; tools: {', '.join(self.dispatch)}", True
        if not isinstance(arguments, dict):
            return "Error: a tool's arguments are a JSON object", True
        mcp, raw = self.dispatch[name]
        try:
            result = await mcp.call_tool(raw, arguments)
        except Exception as e:  # the tool's own error (bad arguments, a raise): the model's
            return f"Error: {type(e).__name__}: {e}"[:2000], True
        texts = [getattr(b, "text", None) or str(b) for b in getattr(result, "content", [])]
        return "\n".join(texts), bool(getattr(result, "is_error", False))

    async def _stops(self) -> str | None:
        from verifiers.v1.session import call_hook, hook_boundary

        for fn in self.task.hooks("stop"):
            if hook_boundary(fn, allow_trace=True) is not _vf().Trace:
                continue  # Request/Response stops watch the model's wire, not a turn
            if await call_hook(fn, {_vf().Trace: self.trace}):
                return str(fn.__name__)
        return None

    async def _score(self, stop: str) -> dict[str, Any]:
        self.done = True
        self.trace.stop(stop)
        out: dict[str, Any] = {}
        try:
            await self.task.score(self.trace)
        except Exception as e:  # a scorer failing on odd input scores 0 (as reasoning-gym's)
            out["score_error"] = f"{type(e).__name__}: {e}"[:500]
        rewards = {k: (None if r is None else {"score": r.score, "weight": r.weight})
                   for k, r in self.trace.rewards.items()}
        reward = self.trace.reward
        if not math.isfinite(reward) or "score_error" in out:
            out.setdefault("score_error", f"reward {reward}")
            reward = 0.0
        out.update(reward=float(reward), rewards=rewards,
                   metrics={k: v for k, v in self.trace.metrics.items()})
        return out

    async def close(self) -> None:
        for server in self.toolsets + self.shared:
            try:
                await server._exit_stack.aclose()
            except Exception:  # tearing a server down: nothing left to report to
                logging.getLogger(__name__).exception("closing a tool server")


def _with_state(fn: Any, state: Any, var: Any) -> Any:
    """``fn`` called with the episode's state as the server's ``self.state``."""
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        token = var.set(state)
        try:
            result = fn(*args, **kwargs)
            return await result if inspect.isawaitable(result) else result
        finally:
            var.reset(token)

    wrapper.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return wrapper
