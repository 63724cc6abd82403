"""Run a server: ``agentgym serve ENV --mcp|--http`` and ``python -m agentgym.serve``.

Safe by default: servers bind loopback (``127.0.0.1``) and answer only to loopback Host names and
Origins; another ``host`` is refused without ``allow_public``, and a public server always needs a
bearer token (given, read from ``AGENTGYM_SERVE_TOKEN``, or generated and shown at start). A
served env runs model-written actions (SQL, code, a desktop), so exposing it is an explicit
choice. Ctrl-C stops a server with one line, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from dataclasses import dataclass
from typing import Any

from .guard import (
    DEFAULT_MAX_BODY_BYTES,
    TOKEN_ENV,
    GuardSettings,
    check_bind,
    guard_for,
    is_loopback,
    new_token,
)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Access:
    """Who may call a server: its request guard, and whether its token was generated here."""

    guard: GuardSettings
    generated_token: bool = False


def access_for(host: str, *, token: str | None = None, allow_public: bool = False,
               max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, what: str = "the server",
               require_token: bool = False) -> Access:
    """Decide a server's access rules from its bind address (the one place this is decided).

    ``token`` (else ``$AGENTGYM_SERVE_TOKEN``) is required of every client when given; a
    non-loopback ``host``, or any host with ``require_token`` (the gateway: its clients post
    rewards and read prompts, and loopback is shared by every local user), gets a generated
    token when none is given. A public ``host`` needs ``allow_public`` (else ValueError).
    """
    check_bind(host, allow_public, what)
    token = token or os.environ.get(TOKEN_ENV) or None
    generated = token is None and (require_token or not is_loopback(host))
    if generated:
        token = new_token()
    return Access(guard_for(host, token=token, max_body_bytes=max_body_bytes), generated)


class _ShutdownNoise(logging.Filter):
    """Drops uvicorn's records about requests cut by Ctrl-C (their tracebacks end in
    CancelledError and say nothing the user can act on)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, asyncio.CancelledError):
            return False
        return "timeout graceful shutdown exceeded" not in record.getMessage()


def run_uvicorn(app: Any, host: str, port: int, *, log_level: str = "warning",
                max_message_bytes: int = DEFAULT_MAX_BODY_BYTES, keep_alive_s: int = 75) -> bool:
    """Serve ``app`` until Ctrl-C or SIGTERM; True when stopped by Ctrl-C.

    In-flight requests get a few seconds to finish, then are cut without a traceback.
    """
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False,
                            ws_max_size=max_message_bytes, timeout_graceful_shutdown=3,
                            timeout_keep_alive=keep_alive_s)
    noise = _ShutdownNoise()
    loggers = [logging.getLogger(n) for n in ("uvicorn.error", "uvicorn", "asyncio")]
    for lg in loggers:
        lg.addFilter(noise)
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:  # uvicorn re-raises the captured SIGINT once it has stopped
        return True
    finally:
        for lg in loggers:
            lg.removeFilter(noise)
    return False


def serve_http(
    env_ids: list[str],
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    max_sessions: int = 256,
    idle_timeout_s: float | None = 600.0,
    log_level: str = "warning",
    access: Access | None = None,
    env_kwargs: dict[str, Any] | None = None,
    offer_expert: bool = True,
) -> bool:
    """Serve ``env_ids`` over the OpenEnv-compatible HTTP/WebSocket protocol until interrupted.

    ``access`` defaults to :func:`access_for` ``(host)``. Returns True when stopped by Ctrl-C.
    """
    from .http import create_app

    access = access or access_for(host)
    app = create_app(env_ids, max_sessions=max_sessions, idle_timeout_s=idle_timeout_s,
                     guard=access.guard, env_kwargs=env_kwargs, offer_expert=offer_expert)
    return run_uvicorn(app, host, port, log_level=log_level,
                       max_message_bytes=access.guard.max_body_bytes)


def serve_mcp(
    env_id: str,
    *,
    transport: str = "stdio",
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    max_sessions: int = 64,
    idle_timeout_s: float | None = 600.0,
    log_level: str = "warning",
    access: Access | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> bool:
    """Serve ``env_id`` as an MCP server over ``stdio`` or streamable ``http`` (path ``/mcp``).

    Returns True when stopped by Ctrl-C.
    """
    import anyio

    from .mcp import create_mcp_server

    if transport not in ("stdio", "http"):
        raise ValueError(f"unknown MCP transport {transport!r}: use stdio or http")
    access = access or access_for(host)
    server = create_mcp_server(env_id, max_episodes=max_sessions, idle_timeout_s=idle_timeout_s,
                               env_kwargs=env_kwargs)
    if transport == "stdio":
        try:
            anyio.run(server.run_stdio)
        except KeyboardInterrupt:
            return True
        return False
    app = server.http_app(host=host, guard=access.guard)
    return run_uvicorn(app, host, port, log_level=log_level,
                       max_message_bytes=access.guard.max_body_bytes)


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
    parser.add_argument("--allow-public", action="store_true",
                        help="allow a non-loopback --host (a bearer token is then required)")
    parser.add_argument("--token", default=None,
                        help=f"bearer token clients must send (default: ${TOKEN_ENV}; generated "
                             "for a public host)")
    parser.add_argument("--split", default=None, help="task split to serve")
    parser.add_argument("--max-sessions", type=int, default=256)
    parser.add_argument("--idle-timeout", type=float, default=600.0,
                        help="seconds; 0 disables the idle timeout")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    try:
        access = access_for(args.host, token=args.token, allow_public=args.allow_public)
    except ValueError as e:
        parser.error(str(e))
    if access.generated_token:
        logger.warning("bearer token (clients send it as %s): %s", TOKEN_ENV,
                       access.guard.token)
    idle = args.idle_timeout or None
    env_kwargs = {"split": args.split} if args.split else None
    if args.mcp:
        stopped = serve_mcp(args.env_ids[0], transport=args.transport, host=args.host,
                            port=args.port, max_sessions=args.max_sessions, idle_timeout_s=idle,
                            access=access, env_kwargs=env_kwargs)
    else:
        stopped = serve_http(args.env_ids, host=args.host, port=args.port,
                             max_sessions=args.max_sessions, idle_timeout_s=idle, access=access,
                             env_kwargs=env_kwargs)
    if stopped:
        logger.warning("stopped (Ctrl-C)")
        raise SystemExit(130)


__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "Access",
    "access_for",
    "main",
    "run_uvicorn",
    "serve_http",
    "serve_mcp",
]
