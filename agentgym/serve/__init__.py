"""Serve any agentgym env to the outside, and use served envs as if they were local.

- :func:`create_app`: an OpenEnv-compatible reset/step/state server (FastAPI + WebSocket
  sessions, one env instance per session, session cap and idle timeout).
- :func:`create_mcp_server`: a Model Context Protocol server exposing the env's tools plus
  ``reset`` (stdio or streamable HTTP).
- :class:`RemoteEnv` / ``agentgym.make("remote:http://host:port/ENV")``: a served env that looks
  local (sync and async), for the rollout engine, ``agentgym eval`` and the trainer; ``remote:``
  is the :class:`RemoteResolver`, registered through the ``agentgym_register_resolvers`` hook.
- :class:`RequestGuard` / :class:`GuardSettings`: what every server lets in (loopback Host and
  Origin, JSON bodies under a size limit, the bearer token of ``$AGENTGYM_SERVE_TOKEN``).

Servers need the ``serve`` extra (``pip install 'agentgym[serve]'``); their modules import
FastAPI and the MCP SDK, so import them from here only when serving. Every name is imported on
first use: loading the plugins (which registers ``remote:`` from :mod:`agentgym.serve.plugin`)
imports no HTTP client.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "GuardSettings": ".guard",
    "REMOTE_PREFIX": ".client",
    "RemoteEnv": ".client",
    "RemoteEnvError": ".client",
    "RemoteResolver": ".client",
    "RequestGuard": ".guard",
    "SchemaTool": ".client",
    "Session": ".sessions",
    "SessionError": ".sessions",
    "SessionLimitReached": ".sessions",
    "SessionNotFound": ".sessions",
    "SessionPool": ".sessions",
    "TOKEN_ENV": ".guard",
    "make_remote": ".client",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


def __dir__() -> list[str]:
    return sorted(__all__)


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The OpenEnv-compatible FastAPI app (see :func:`agentgym.serve.http.create_app`)."""
    from .http import create_app as _create_app

    return _create_app(*args, **kwargs)


def create_mcp_server(*args: Any, **kwargs: Any) -> Any:
    """The MCP server (see :func:`agentgym.serve.mcp.create_mcp_server`)."""
    from .mcp import create_mcp_server as _create

    return _create(*args, **kwargs)


__all__ = [
    "GuardSettings",
    "REMOTE_PREFIX",
    "RemoteEnv",
    "RemoteEnvError",
    "RemoteResolver",
    "RequestGuard",
    "SchemaTool",
    "Session",
    "SessionError",
    "SessionLimitReached",
    "SessionNotFound",
    "SessionPool",
    "TOKEN_ENV",
    "create_app",
    "create_mcp_server",
    "make_remote",
]
