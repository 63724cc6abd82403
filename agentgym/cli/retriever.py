"""``agentgym serve-retriever``: a Search-R1-compatible ``POST /retrieve`` service.

The search family implements it (``agentgym.envs.search.service:serve_corpus``); the core
loads it by name, as ``train`` loads a trainer, so it never imports an env family.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..registrars import load_entry_point
from .app import app, err_console, run_guarded

SERVE_CORPUS = "agentgym.envs.search.service:serve_corpus"


@app.command("serve-retriever")
def serve_retriever(
    retriever: Annotated[str, typer.Option(help="bm25, dense or hybrid.")] = "bm25",
    corpus: Annotated[str | None, typer.Option(
        help="Search-R1 corpus JSONL (default: the bundled encyclopedia).")] = None,
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    allow_public: Annotated[bool, typer.Option(
        help="Allow a non-loopback --host (the service has no authentication).")] = False,
    max_batch: Annotated[int, typer.Option(help="Most queries per request.")] = 512,
) -> None:
    """Serve retrieval over HTTP: POST /retrieve {"queries", "topk", "return_scores"}."""
    err_console.print(f"{retriever} retriever at http://{host}:{port}/retrieve")
    serve_corpus = run_guarded(load_entry_point, SERVE_CORPUS)
    run_guarded(serve_corpus, retriever=retriever, corpus_path=corpus,
                host=host, port=port, allow_public=allow_public, max_batch=max_batch)
