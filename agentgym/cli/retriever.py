"""``agentgym serve-retriever``: a Search-R1-compatible ``POST /retrieve`` service.

The search family registers the service as ``retriever`` in the ``services`` registry (its
``agentgym_register_services`` hook); the core looks it up by that name, so it never names an
env family.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .app import app, err_console, run_guarded
from .ports import require_free_port

SERVICE = "retriever"
"""Name of the service in the ``services`` registry."""


@app.command("serve-retriever")
def serve_retriever(
    retriever: Annotated[str, typer.Option(help="bm25, dense or hybrid.")] = "bm25",
    corpus: Annotated[str | None, typer.Option(
        help="Search-R1 corpus JSONL (default: the bundled encyclopedia).")] = None,
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    allow_public: Annotated[bool, typer.Option(
        "--allow-public", help="Allow a non-loopback --host (clients then need the bearer "
        "token).")] = False,
    token: Annotated[str | None, typer.Option(
        help="Bearer token every client must send (default: $AGENTGYM_SERVE_TOKEN; generated "
             "and shown for a public --host).", show_default=False)] = None,
    max_batch: Annotated[int, typer.Option(help="Most queries per request.")] = 512,
) -> None:
    """Serve retrieval over HTTP: POST /retrieve {"queries", "topk", "return_scores"}."""
    from ..plugins import get_registry
    from ..serve.guard import TOKEN_ENV
    from ..serve.run import access_for

    access = run_guarded(access_for, host, token=token, allow_public=allow_public,
                         what="the retriever service")
    if access.generated_token:
        err_console.print(f"bearer token: {access.guard.token}\nclients send it as "
                          f"'Authorization: Bearer <token>'; agentgym clients read "
                          f"${TOKEN_ENV}", highlight=False, soft_wrap=True)
    serve_corpus = run_guarded(lambda: get_registry("services").load(SERVICE))
    require_free_port(host, port)
    err_console.print(f"{retriever} retriever at http://{host}:{port}/retrieve")
    stopped = run_guarded(serve_corpus, retriever=retriever, corpus_path=corpus, host=host,
                          port=port, allow_public=allow_public, max_batch=max_batch,
                          token=access.guard.token)
    if stopped:
        err_console.print("stopped serving (Ctrl-C)")
        raise typer.Exit(130)
