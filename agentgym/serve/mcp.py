"""A Model Context Protocol server for any agentgym env (the ``mcp`` SDK; stdio or streamable HTTP).

Tools offered: ``reset`` (start an episode: optional ``task_id``, ``seed``) and every tool of the
env. Calling an env tool is one env ``step`` with that single tool call, so turn limits, rewards
and episode ends work as in training. Each result's text is the observation; its structured
content holds ``reward``, ``terminated``, ``truncated``, ``done`` and ``episode_id``. The env's
instructions are the server's MCP ``instructions``.

Episodes belong to the client that started them, never to a shared default:

- stdio (one client per process) and legacy streamable HTTP (an ``Mcp-Session-Id``): episodes
  are scoped to that client; ``episode_id`` is an optional name inside the scope, so two clients
  may both use ``"a"`` and never meet.
- the current MCP protocol (2026-07-28) has no sessions: ``reset`` mints an unguessable
  ``episode_id`` (the client's name, if given, plus a random token) and every other call must
  pass it; holding the id is what lets a client act in the episode.

Each episode holds its own env instance in a :class:`~agentgym.serve.SessionPool` (cap and idle
timeout as for HTTP sessions). Over HTTP, requests pass the same
:class:`~agentgym.serve.guard.RequestGuard` as the OpenEnv-style server (Host, Origin, token,
content type, body size).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import re
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import mcp_types as types
from mcp.server import Server

from ..errors import AgentGymError
from ..registry import make, spec
from ..toolcalls import ToolCall
from .guard import GuardSettings, RequestGuard
from .sessions import Session, SessionError, SessionNotFound, SessionPool
from .wire import jsonable

DEFAULT_EPISODE = "default"
"""The episode name of a scoped client (stdio, legacy HTTP session) that gives none."""
STDIO_SCOPE = "stdio"
_NAME = re.compile(r"^[\w.-]{1,64}$")
_EPISODE_FIELD = {
    "type": "string",
    "description": "Episode to act in: the id `reset` returned (optional over stdio and legacy "
                   "HTTP sessions).",
}
EpisodeKey = tuple[str | None, str]
"""(client scope or None for a sessionless HTTP client, episode id)."""
RESET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task_id": {"type": "string", "description": "Task to play; omit for one drawn by seed."},
        "seed": {"type": "integer", "minimum": 0, "description": "Seed that picks the task."},
        "episode_id": _EPISODE_FIELD,
    },
    "additionalProperties": False,
}


def _text_result(text: str, *, error: bool = False, **structured: Any) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=jsonable(structured) if structured else None,
        is_error=error,
    )


class McpEnvServer:
    """An env behind an MCP :class:`mcp.server.Server`; build with :func:`create_mcp_server`."""

    def __init__(
        self,
        env_id: str,
        factory: Callable[[], Any],
        *,
        max_episodes: int = 64,
        idle_timeout_s: float | None = 600.0,
    ) -> None:
        self.env_id = env_id
        self.pool = SessionPool(factory, max_sessions=max_episodes, idle_timeout_s=idle_timeout_s)
        self._episodes: dict[EpisodeKey, str] = {}
        probe = factory()
        try:
            self.instructions = getattr(probe, "instructions", "") or ""
            toolset = getattr(probe, "tools", None)
            self.env_tools = [t.to_mcp() for t in toolset] if toolset is not None else []
        finally:
            probe.close()
        self.server: Server[Any] = Server(
            "agentgym",
            version=_version(),
            description=f"agentgym env {env_id}",
            instructions=self.instructions,
            lifespan=self._lifespan,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    @contextlib.asynccontextmanager
    async def _lifespan(self, _: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        self.pool.start_reaper()
        try:
            yield {}
        finally:
            await self.pool.close_all()
            self._episodes.clear()

    def tool_definitions(self) -> list[types.Tool]:
        """``reset`` plus the env's tools, each with the optional ``episode_id`` argument."""
        tools = [types.Tool(
            name="reset",
            description=f"Start a new episode of {self.env_id}; returns the task.",
            input_schema=RESET_SCHEMA,
        )]
        for entry in self.env_tools:
            schema = dict(entry["inputSchema"])
            schema["properties"] = {**schema.get("properties", {}), "episode_id": _EPISODE_FIELD}
            tools.append(types.Tool(
                name=entry["name"], description=entry["description"], input_schema=schema
            ))
        return tools

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tool_definitions())

    @staticmethod
    def _scope(ctx: Any) -> str | None:
        """The client's scope: stdio, its legacy MCP session, or None (sessionless HTTP)."""
        request = getattr(ctx, "request", None)
        if request is None:
            return STDIO_SCOPE
        headers = getattr(request, "headers", None)
        header = headers.get("mcp-session-id") if headers is not None else None
        return f"session:{header}" if header else None

    async def _episode(self, key: EpisodeKey) -> Session | None:
        session_id = self._episodes.get(key)
        if session_id is None:
            return None
        try:
            return self.pool.get(session_id)
        except SessionNotFound:  # expired while idle
            self._episodes.pop(key, None)
            return None

    async def _open_episode(self, key: EpisodeKey) -> Session:
        session = await self._episode(key)
        if session is None:
            if len(self._episodes) >= 2 * self.pool.max_sessions:
                self._forget_closed()
            session = await self.pool.open()
            self._episodes[key] = session.id
        return session

    def _forget_closed(self) -> None:
        open_ids = {s["session_id"] for s in self.pool.states()}
        for key, session_id in list(self._episodes.items()):
            if session_id not in open_ids:
                del self._episodes[key]

    def _reset_key(self, scope: str | None, name: Any) -> EpisodeKey:
        if name is not None and (not isinstance(name, str) or not _NAME.match(name)):
            raise SessionError("episode_id must be 1-64 letters, digits, '.', '_' or '-'")
        if scope is not None:
            return scope, name or DEFAULT_EPISODE
        if name and (None, name) in self._episodes:  # an id this client was given
            return None, name
        token = secrets.token_urlsafe(18)
        return None, f"{name}.{token}" if name else token

    def _step_key(self, scope: str | None, name: Any) -> EpisodeKey:
        if name is not None and not isinstance(name, str):
            raise SessionError("episode_id must be a string")
        if scope is not None:
            return scope, name or DEFAULT_EPISODE
        if not name:
            raise SessionError("pass the episode_id that `reset` returned (this connection "
                               "has no MCP session to hold an episode)")
        return None, name

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        scope = self._scope(ctx)
        name = arguments.pop("episode_id", None)
        try:
            if params.name == "reset":
                return await self._reset(self._reset_key(scope, name), arguments)
            return await self._step(self._step_key(scope, name), params.name, arguments)
        except SessionError as e:
            return _text_result(f"Error: {e}", error=True)
        except AgentGymError as e:
            return _text_result(f"Error: {e}", error=True)

    async def _reset(self, key: EpisodeKey, arguments: dict[str, Any]) -> types.CallToolResult:
        unknown = set(arguments) - {"task_id", "seed"}
        if unknown:
            return _text_result(f"Error: reset takes task_id and seed, not {sorted(unknown)}",
                                error=True)
        session = await self._open_episode(key)
        options = {"task_id": str(arguments["task_id"])} if "task_id" in arguments else {}
        seed = arguments.get("seed")
        async with self.pool.use(session.id) as s:
            obs, info = await s.env.areset(seed=int(seed) if seed is not None else None,
                                           options=options)
            s.done, s.step_count, s.episode_id = False, 0, key[1]
        return self._result(obs, episode_id=key[1], task_id=info.get("task_id"), done=False)

    async def _step(
        self, key: EpisodeKey, name: str, arguments: dict[str, Any]
    ) -> types.CallToolResult:
        session = await self._episode(key)
        if session is None or session.done:
            return _text_result(
                "Error: no episode in progress under this episode_id: call the `reset` tool "
                "first", error=True,
            )
        async with self.pool.use(session.id) as s:
            result = await s.env.astep([ToolCall(name, arguments)])
            obs, reward, terminated, truncated, info = result
            s.step_count += 1
            s.done = bool(terminated or truncated)
        return self._result(
            obs, error="error" in info, episode_id=key[1], reward=float(reward),
            terminated=bool(terminated), truncated=bool(truncated), done=s.done,
            success=info.get("success"),
        )

    @staticmethod
    def _result(
        obs: dict[str, Any], *, error: bool = False, **structured: Any
    ) -> types.CallToolResult:
        content: list[Any] = [types.TextContent(type="text", text=str(obs.get("text", "")))]
        for png in obs.get("images", ()):
            content.append(types.ImageContent(
                type="image", data=base64.b64encode(bytes(png)).decode("ascii"),
                mime_type="image/png",
            ))
        return types.CallToolResult(
            content=content, structured_content=jsonable(structured), is_error=error
        )

    async def run_stdio(self) -> None:
        """Serve one client over stdin/stdout until it disconnects."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    def http_app(
        self, *, host: str = "127.0.0.1", path: str = "/mcp", guard: GuardSettings | None = None
    ) -> Any:
        """The streamable-HTTP ASGI app behind :class:`RequestGuard` (``guard``: loopback only,
        no token, by default), as the OpenEnv-style server."""
        settings = guard or GuardSettings()
        app = self.server.streamable_http_app(
            streamable_http_path=path, host=host, max_sessions=self.pool.max_sessions,
            session_idle_timeout=self.pool.idle_timeout_s,
            max_request_body_size=settings.max_body_bytes,
        )
        app.add_middleware(RequestGuard, settings=settings)
        return app


def _version() -> str:
    from .. import __version__

    return __version__


def create_mcp_server(
    env_id: str,
    *,
    max_episodes: int = 64,
    idle_timeout_s: float | None = 600.0,
    env_kwargs: dict[str, Any] | None = None,
) -> McpEnvServer:
    """An MCP server for the registered env ``env_id`` (``env_kwargs`` go to :func:`make`)."""
    canonical = spec(env_id).id
    factory = functools.partial(make, canonical, **(env_kwargs or {}))
    return McpEnvServer(
        canonical, factory, max_episodes=max_episodes, idle_timeout_s=idle_timeout_s
    )


__all__ = ["DEFAULT_EPISODE", "RESET_SCHEMA", "STDIO_SCOPE", "McpEnvServer", "create_mcp_server"]
