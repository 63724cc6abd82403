"""``agentgym serve ENV [ENV...] --mcp|--http``: serve envs to MCP clients or reset/step clients."""

from __future__ import annotations

from typing import Annotated

import typer

from .app import ADVANCED, app, err_console, fail, run_guarded
from .ports import require_free_port


@app.command()
def serve(
    env_ids: Annotated[list[str], typer.Argument(
        metavar="ENV...", help="Env ids or aliases (MCP: the first).", show_default=False)],
    mcp: Annotated[bool, typer.Option("--mcp", help="Serve the Model Context Protocol.")] = False,
    http: Annotated[bool, typer.Option("--http", help="Serve reset/step/state (OpenEnv).")] = False,
    openenv: Annotated[bool, typer.Option(
        "--openenv", help="Serve OpenEnv's protocol for its clients (the --http server: /ws, "
                          "/reset, /step, /state, /schema, /metadata, /health).")] = False,
    transport: Annotated[str, typer.Option(help="MCP transport: stdio or http.")] = "stdio",
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    allow_public: Annotated[bool, typer.Option(
        "--allow-public", help="Allow a non-loopback --host (clients then need the bearer "
        "token).", rich_help_panel=ADVANCED)] = False,
    token: Annotated[str | None, typer.Option(
        help="Bearer token every client must send (default: $AGENTGYM_SERVE_TOKEN; generated "
             "and shown for a public --host).", show_default=False,
        rich_help_panel=ADVANCED)] = None,
    split: Annotated[str, typer.Option(
        help="Task split to serve: test (held-out, never trained on) by default, so an "
             "external evaluation is on held-out tasks; --split train to train through the "
             "server (HTTP clients may also ask for a split per session).")] = "test",
    expert: Annotated[bool, typer.Option(
        help="Offer the expert's actions (GET /expert), for `--policy scripted` through "
             "remote envs.", rich_help_panel=ADVANCED)] = True,
    max_sessions: Annotated[int, typer.Option(
        help="Sessions (env instances) at once.", rich_help_panel=ADVANCED)] = 256,
    idle_timeout: Annotated[float, typer.Option(
        help="Close idle sessions after N s (0: never).", rich_help_panel=ADVANCED)] = 600.0,
) -> None:
    """Serve envs over ``--http`` (OpenEnv reset/step/state, WebSocket) or ``--mcp`` (tools)."""
    http = http or openenv  # docs/interop.md: openenv-core's client runs against it
    if mcp == http:
        fail("choose exactly one of --mcp and --http (or --openenv)")
    if mcp and transport not in ("stdio", "http"):
        fail(f"unknown MCP transport {transport!r}: use stdio or http")
    from ..registry import spec
    from ..serve.guard import TOKEN_ENV
    from ..serve.run import access_for, serve_http, serve_mcp

    for env_id in env_ids:
        run_guarded(spec, env_id)
    if mcp and transport == "stdio":  # no socket: the client launched this process
        access = run_guarded(access_for, "127.0.0.1")
    else:
        access = run_guarded(access_for, host, token=token, allow_public=allow_public)
    if not (mcp and transport == "stdio"):  # before announcing anything: one line if busy
        require_free_port(host, port)
    idle = idle_timeout or None
    env_kwargs = {"split": split}
    if access.generated_token:
        err_console.print(f"bearer token: {access.guard.token}\nclients send it as "
                          f"'Authorization: Bearer <token>'; agentgym clients read "
                          f"${TOKEN_ENV}", highlight=False, soft_wrap=True)
    if mcp:
        if transport == "http":
            err_console.print(f"MCP server of {env_ids[0]} ({split} split) at "
                              f"http://{host}:{port}/mcp", highlight=False)
        stopped = run_guarded(serve_mcp, env_ids[0], transport=transport, host=host, port=port,
                              max_sessions=max_sessions, idle_timeout_s=idle, access=access,
                              env_kwargs=env_kwargs)
    else:
        err_console.print(f"serving {', '.join(env_ids)} ({split} split) at "
                          f"http://{host}:{port} (WebSocket /ws; "
                          f"remote:http://{host}:{port}/<env id>)", highlight=False)
        stopped = run_guarded(serve_http, env_ids, host=host, port=port,
                              max_sessions=max_sessions, idle_timeout_s=idle, access=access,
                              env_kwargs=env_kwargs, offer_expert=expert)
    if stopped:
        err_console.print("stopped serving (Ctrl-C)")
        raise typer.Exit(130)
