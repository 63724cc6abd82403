"""Run a server: ``agentgym serve ENV --mcp|--http`` and ``python -m agentgym.serve``.

HTTP servers bind to loopback (``127.0.0.1``) unless ``host`` says otherwise: a served env runs
model-written actions (SQL, code), so exposing it is an explicit choice.
"""

from __future__ import annotations

import argparse
import logging
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def _uvicorn(app: Any, host: str, port: int, log_level: str) -> None:
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_max_size=64 * 2**20,
                timeout_graceful_shutdown=5, timeout_keep_alive=75)


def serve_http(
    env_ids: list[str],
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    max_sessions: int = 256,
    idle_timeout_s: float | None = 600.0,
    log_level: str = "warning",
) -> None:
    """Serve ``env_ids`` over the OpenEnv-compatible HTTP/WebSocket protocol until interrupted."""
    from .http import create_app

    app = create_app(env_ids, max_sessions=max_sessions, idle_timeout_s=idle_timeout_s)
    _uvicorn(app, host, port, log_level)


def serve_mcp(
    env_id: str,
    *,
    transport: str = "stdio",
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    max_sessions: int = 64,
    idle_timeout_s: float | None = 600.0,
    log_level: str = "warning",
) -> None:
    """Serve ``env_id`` as an MCP server over ``stdio`` or streamable ``http`` (path ``/mcp``)."""
    import anyio

    from .mcp import create_mcp_server

    server = create_mcp_server(env_id, max_episodes=max_sessions, idle_timeout_s=idle_timeout_s)
    if transport == "stdio":
        anyio.run(server.run_stdio)
    elif transport == "http":
        _uvicorn(server.http_app(host=host), host, port, log_level)
    else:
        raise ValueError(f"unknown MCP transport {transport!r}: use stdio or http")


def main(argv: list[str] | None = None) -> None:
    """``python -m agentgym.serve ENV [ENV...] (--mcp [--transport http] | --http)``."""
    parser = argparse.ArgumentParser(prog="python -m agentgym.serve", description=__doc__)
    parser.add_argument("env_ids", nargs="+", help="env ids or aliases (MCP serves the first)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--mcp", action="store_true", help="serve the Model Context Protocol")
    mode.add_argument("--http", action="store_true", help="serve reset/step/state (OpenEnv)")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                        help="MCP transport (default stdio)")
    parser.add_argument("--host", default=DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--max-sessions", type=int, default=256)
    parser.add_argument("--idle-timeout", type=float, default=600.0,
                        help="seconds; 0 disables the idle timeout")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    idle = args.idle_timeout or None
    if args.mcp:
        serve_mcp(args.env_ids[0], transport=args.transport, host=args.host, port=args.port,
                  max_sessions=args.max_sessions, idle_timeout_s=idle)
    else:
        serve_http(args.env_ids, host=args.host, port=args.port,
                   max_sessions=args.max_sessions, idle_timeout_s=idle)


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "main", "serve_http", "serve_mcp"]
