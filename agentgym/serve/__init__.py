"""Serve any agentgym env to the outside, and use served envs as if they were local.

- :func:`create_app`: an OpenEnv-compatible reset/step/state server (FastAPI + WebSocket
  sessions, one env instance per session, session cap and idle timeout).
- :func:`create_mcp_server`: a Model Context Protocol server exposing the env's tools plus
  ``reset`` (stdio or streamable HTTP).
- :class:`RemoteEnv` / ``agentgym.make("remote:http://host:port/ENV")``: a served env that looks
  local (sync and async), for the rollout engine, ``agentgym eval`` and the trainer.

Servers need the ``serve`` extra (``pip install 'agentgym[serve]'``); their modules import
FastAPI and the MCP SDK, so import them from here only when serving.
"""

from __future__ import annotations

from typing import Any

from .client import REMOTE_PREFIX, RemoteEnv, RemoteEnvError, SchemaTool, make_remote
from .sessions import Session, SessionError, SessionLimitReached, SessionNotFound, SessionPool


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The OpenEnv-compatible FastAPI app (see :func:`agentgym.serve.http.create_app`)."""
    from .http import create_app as _create_app

    return _create_app(*args, **kwargs)


def create_mcp_server(*args: Any, **kwargs: Any) -> Any:
    """The MCP server (see :func:`agentgym.serve.mcp.create_mcp_server`)."""
    from .mcp import create_mcp_server as _create

    return _create(*args, **kwargs)


__all__ = [
    "REMOTE_PREFIX",
    "RemoteEnv",
    "RemoteEnvError",
    "SchemaTool",
    "Session",
    "SessionError",
    "SessionLimitReached",
    "SessionNotFound",
    "SessionPool",
    "create_app",
    "create_mcp_server",
    "make_remote",
]
