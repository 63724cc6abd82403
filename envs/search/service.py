"""A Search-R1-compatible retrieval service (FastAPI) that batches concurrent queries.

``POST /retrieve`` takes ``{"queries": [...], "topk": 3, "return_scores": false}`` and answers
``{"result": [[doc, ...], ...]}`` (``doc = {"id", "contents"}``), or with ``return_scores``
``[[{"document": doc, "score": s}, ...], ...]``, as Search-R1's ``retrieval_server.py``.
Extensions: ``GET /passages/{id}`` (the env's ``open`` tool) and ``GET /health``.

Concurrent requests are merged: a single batcher task takes every pending request (up to
``max_batch`` queries), runs one ``batch_search`` on the event loop and hands each request its
rows, so many env workers share one index. Limits answer with a clear 4xx:
more than ``max_batch`` queries (413), a body over ``max_body_bytes`` (413, counted as the body
arrives, chunked or not), ``topk`` outside 1..100 or malformed JSON (422).

Safe by default, as ``agentgym serve``: every request passes the same
:class:`agentgym.serve.guard.RequestGuard` (loopback Host and Origin only, JSON content type,
bearer token when one is set); the service binds 127.0.0.1, another host needs ``allow_public``
and then a token.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from agentgym.serve.guard import GuardSettings, RequestGuard, check_bind, is_loopback
from agentgym.serve.run import access_for, run_uvicorn
from agentgym.serve.wire import MalformedRequest, parse_json

from .retrievers.base import MAX_K, Hit, Retriever

logger = logging.getLogger(__name__)
MAX_BATCH = 512
"""Most queries one request may carry."""
MAX_BODY_BYTES = 1_000_000
MAX_QUERY_CHARS = 2_000
KEEP_ALIVE_S = 60
"""Idle keep-alive connections live this long (uvicorn's 5 s default races with busy clients)."""


class RetrieveRequest(BaseModel):
    """Body of ``POST /retrieve`` (Search-R1's fields)."""

    queries: list[str] = Field(description="Queries to answer, in order.")
    topk: int = Field(3, ge=1, le=MAX_K, description="Passages per query.")
    return_scores: bool = Field(False, description="Wrap each passage with its score.")


@dataclass
class _Pending:
    queries: list[str]
    k: int
    future: asyncio.Future[list[list[Hit]]] = field(repr=False)


class Batcher:
    """Merges concurrent requests into one ``batch_search`` call at a time."""

    def __init__(self, retriever: Retriever, max_batch: int = MAX_BATCH) -> None:
        self.retriever = retriever
        self.max_batch = max_batch
        self.queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.batches = 0
        self.queries = 0

    def start(self) -> None:
        """Start the batcher task on the running loop."""
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Cancel the batcher task."""
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def search(self, queries: list[str], k: int) -> list[list[Hit]]:
        """Queue the queries and wait for their hits."""
        future: asyncio.Future[list[list[Hit]]] = asyncio.get_running_loop().create_future()
        await self.queue.put(_Pending(queries, k, future))
        return await future

    async def _run(self) -> None:
        while True:
            first = await self.queue.get()
            await asyncio.sleep(0)  # let requests that are already readable join this batch
            group = [first]
            size = len(first.queries)
            while not self.queue.empty() and size < self.max_batch:
                item = self.queue.get_nowait()
                group.append(item)
                size += len(item.queries)
            await self._serve(group)

    async def _serve(self, group: Sequence[_Pending]) -> None:
        k = max(p.k for p in group)
        flat = [q for p in group for q in p.queries]
        try:
            # inline, not in a worker thread: the search holds the GIL anyway, and on a busy
            # machine each thread hand-off waits for a time slice; requests that arrive
            # meanwhile wait in the socket buffers and form the next, larger batch
            hits = self.retriever.batch_search(flat, k)
        except Exception as e:  # one bad batch fails its requests, not the service
            logger.exception("batch of %d queries failed", len(flat))
            for p in group:
                if not p.future.done():
                    p.future.set_exception(e)
            return
        self.batches += 1
        self.queries += len(flat)
        start = 0
        for p in group:
            rows = [h[: p.k] for h in hits[start : start + len(p.queries)]]
            start += len(p.queries)
            if not p.future.done():
                p.future.set_result(rows)


def create_app(retriever: Retriever, max_batch: int = MAX_BATCH,
               max_body_bytes: int = MAX_BODY_BYTES, guard: GuardSettings | None = None
               ) -> FastAPI:
    """The FastAPI app serving ``retriever`` behind :class:`RequestGuard` (``guard``: loopback
    only, no token, by default; its body limit is ``max_body_bytes``)."""
    batcher = Batcher(retriever, max_batch)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        batcher.start()
        yield
        await batcher.stop()

    app = FastAPI(title="agentgym retriever", lifespan=lifespan)
    app.state.batcher = batcher

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": f"invalid request: {_first_error(exc)}"}, 422)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        logger.error("request failed", exc_info=exc)  # the trace stays in the service's log
        return JSONResponse({"detail": f"internal error ({type(exc).__name__})"}, 500)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        """Liveness and batching counters."""
        return {"status": "ok", "retriever": retriever.name, "batches": batcher.batches,
                "queries": batcher.queries}

    @app.post("/retrieve", response_class=Response)
    async def retrieve(request: Request) -> Response:
        """Search-R1's ``/retrieve``: the top ``topk`` passages of every query."""
        try:
            body = RetrieveRequest.model_validate(parse_json(await request.body()))
        except MalformedRequest as e:
            raise HTTPException(422, str(e)) from e
        except ValueError as e:  # pydantic's ValidationError
            raise HTTPException(422, f"invalid request: {str(e).splitlines()[0]}") from e
        if len(body.queries) > max_batch:
            raise HTTPException(413, f"{len(body.queries)} queries in one request; the limit "
                                     f"is {max_batch}: split the batch")
        if any(len(q) > MAX_QUERY_CHARS for q in body.queries):
            raise HTTPException(422, f"a query is longer than {MAX_QUERY_CHARS} characters")
        hits = await batcher.search(body.queries, body.topk) if body.queries else []
        result = [[h.to_search_r1(body.return_scores) for h in row] for row in hits]
        # serialised directly: FastAPI's generic encoder costs more than the search itself
        return Response(json.dumps({"result": result}, ensure_ascii=False),
                        media_type="application/json")

    @app.get("/passages/{doc_id}")
    async def passage(doc_id: str) -> dict[str, str]:
        """One passage by id, as a corpus record."""
        found = retriever.get(doc_id)
        if found is None:
            raise HTTPException(404, f"no passage with id {doc_id!r}")
        return {"id": found.id, "contents": found.contents}

    settings = guard or GuardSettings()
    app.add_middleware(RequestGuard, settings=GuardSettings(
        settings.allowed_hosts, settings.allowed_origins, settings.token, max_body_bytes))
    return app


def _first_error(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "malformed"
    e = errors[0]
    return f"{'.'.join(str(p) for p in e.get('loc', ())) or 'body'}: {e.get('msg', '')}"


def serve(retriever: Retriever, host: str = "127.0.0.1", port: int = 8000,
          allow_public: bool = False, max_batch: int = MAX_BATCH, token: str | None = None
          ) -> bool:
    """Run the service until interrupted; True when stopped by Ctrl-C.

    A public host needs ``allow_public`` and a bearer token (``token``, else
    ``$AGENTGYM_SERVE_TOKEN``, else a generated one; the caller shows it).
    """
    access = access_for(host, token=token, allow_public=allow_public,
                        max_body_bytes=MAX_BODY_BYTES, what="the retriever service")
    app = create_app(retriever, max_batch, guard=access.guard)
    return run_uvicorn(app, host, port, keep_alive_s=KEEP_ALIVE_S)


def serve_corpus(retriever: str = "bm25", corpus_path: str | None = None,
                 host: str = "127.0.0.1", port: int = 8000, allow_public: bool = False,
                 max_batch: int = MAX_BATCH, seed: int = 0, token: str | None = None) -> bool:
    """Serve the bundled encyclopedia (or a Search-R1 corpus file) with a cached index.

    Registered as the ``retriever`` service (``agentgym serve-retriever``); True when stopped
    by Ctrl-C.
    """
    from .data import build_retriever, file_corpus, generated_data

    check_bind(host, allow_public, "the retriever service")  # before building any index
    if corpus_path:
        corpus, folder = file_corpus(corpus_path)
    else:
        data = generated_data(seed)
        corpus, folder = data.corpus, data.folder
    return serve(build_retriever(retriever, corpus, folder), host, port, allow_public,
                 max_batch, token)


__all__ = ["MAX_BATCH", "MAX_BODY_BYTES", "Batcher", "RetrieveRequest", "create_app",
           "is_loopback", "serve", "serve_corpus"]
