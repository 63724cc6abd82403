"""``agentgym gateway POLICY``: an OpenAI-compatible server recording agents token-exactly."""

from __future__ import annotations

from typing import Annotated

import typer

from .app import app, err_console, fail, run_guarded
from .evaluate import policy_label
from .ports import require_free_port


@app.command()
def gateway(
    policy: Annotated[str, typer.Argument(
        help="Policy spec: hf:smollm2-135m, vllm:..., openai:http://host/v1 (token ids).")]
    = "hf:smollm2-135m",
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8400,
    allow_public: Annotated[bool, typer.Option(
        "--allow-public", help="Allow a non-loopback --host (clients then need the bearer "
        "token).")] = False,
    token: Annotated[str | None, typer.Option(
        help="Bearer token (the agents' OPENAI_API_KEY; default: $AGENTGYM_SERVE_TOKEN, else "
             "generated and shown).", show_default=False)] = None,
    max_new_tokens: Annotated[int, typer.Option(help="Most tokens one call generates.")] = 512,
    max_context_tokens: Annotated[int, typer.Option(
        help="Longest episode branch in tokens.")] = 8192,
) -> None:
    """Serve POLICY at /episodes/<id>/v1 (OpenAI chat completions), recording each episode."""
    if max_new_tokens < 1 or max_context_tokens < 2:
        fail("--max-new-tokens and --max-context-tokens must be positive")
    from ..gateway import Gateway, GatewayLimits, create_app
    from ..policies.loader import load_policy
    from ..serve.run import access_for, run_uvicorn

    access = run_guarded(access_for, host, token=token, allow_public=allow_public,
                         what="the gateway", require_token=True)
    require_free_port(host, port)  # before the model loads: one line if the port is busy
    loaded = run_guarded(load_policy, policy)
    limits = GatewayLimits(max_new_tokens=max_new_tokens, max_context_tokens=max_context_tokens)
    service = run_guarded(Gateway, loaded, limits=limits)
    if access.generated_token:
        err_console.print(f"bearer token: {access.guard.token}\nagents send it as "
                          "OPENAI_API_KEY", highlight=False, soft_wrap=True)
    err_console.print(f"gateway for {policy_label(policy, loaded.describe())} at "
                      f"http://{host}:{port}/episodes/<episode>/v1 "
                      "(OPENAI_BASE_URL)", highlight=False, soft_wrap=True)
    try:
        stopped = run_uvicorn(create_app(service, access.guard), host, port,
                              max_message_bytes=access.guard.max_body_bytes)
    finally:
        loaded.close()
    if stopped:
        err_console.print("stopped the gateway (Ctrl-C)")
        raise typer.Exit(130)
