"""A retriever that calls a Search-R1-compatible ``POST /retrieve`` service over HTTP.

Works with this project's service (``agentgym serve-retriever``) and with Search-R1's own
``retrieval_server.py``. Passage lookup by id (``open``) uses this project's extension
``GET /passages/{id}``; against a server without it, ``get`` answers from the passages seen in
earlier results. A refused connection, a timeout or a 5xx raises :class:`RetrieverUnavailable`
(an infrastructure failure); a 4xx raises :class:`RetrieverError`.

A service is not trusted to be well-behaved: every request has a total deadline (``timeout_s``,
however slowly the answer trickles in) and a size cap (``max_response_bytes``); an answer past
either, or one that is not the documented shape, raises :class:`RetrieverUnavailable`, so the
episode is aborted as an infrastructure fault, never scored as the model's failure. A service
that needs a bearer token gets ``token`` (default ``$AGENTGYM_SERVE_TOKEN``).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import httpx

from agentgym.serve.guard import TOKEN_ENV
from agentgym.serve.wire import MalformedRequest, parse_json

from ..corpus import Passage
from .base import Hit, Retriever, RetrieverError, RetrieverUnavailable, check_k

MAX_RESPONSE_BYTES = 64 * 2**20
"""Largest answer read from a service (64 MiB)."""


class RemoteRetriever(Retriever):
    """Client of a ``/retrieve`` service; one pooled ``httpx.Client`` per instance."""

    name = "remote"

    def __init__(self, url: str, timeout_s: float = 30.0,
                 max_response_bytes: int = MAX_RESPONSE_BYTES, token: str | None = None) -> None:
        """``url`` is the service root (``http://127.0.0.1:8000``) or its ``/retrieve`` URL."""
        self.base = url.rstrip("/").removesuffix("/retrieve")
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
        token = token or os.environ.get(TOKEN_ENV) or None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        # one read may wait at most a quarter of the deadline, so the deadline is checked often
        self.client = httpx.Client(timeout=httpx.Timeout(max(timeout_s / 4, 0.05)),
                                   headers=headers)
        self.seen: dict[str, Passage] = {}

    def _request(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        """``(status, parsed JSON body or None)``, within the deadline and the size cap."""
        deadline = time.monotonic() + self.timeout_s
        try:
            with self.client.stream(method, self.base + path, **kwargs) as response:
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > self.max_response_bytes:
                        raise RetrieverUnavailable(
                            f"retrieval service {self.base}: answer over "
                            f"{self.max_response_bytes} bytes")
                    if time.monotonic() > deadline:
                        raise RetrieverUnavailable(
                            f"retrieval service {self.base}: no full answer within the "
                            f"{self.timeout_s:g}s deadline")
                status = response.status_code
        except httpx.HTTPError as e:
            if time.monotonic() > deadline:
                raise RetrieverUnavailable(f"retrieval service {self.base}: no full answer "
                                           f"within the {self.timeout_s:g}s deadline") from e
            raise RetrieverUnavailable(f"retrieval service {self.base}: {e}") from e
        if status >= 500:
            raise RetrieverUnavailable(f"retrieval service {self.base}: HTTP {status}")
        if status >= 400:
            return status, bytes(body[:200]).decode("utf-8", "replace")
        try:
            return status, parse_json(bytes(body), max_depth=8)
        except MalformedRequest as e:
            raise RetrieverUnavailable(f"retrieval service sent a malformed answer: {e}") from e

    def batch_search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """POST the queries to ``/retrieve`` and parse ``{"result": [[{document, score}]]}``."""
        check_k(k)
        body = {"queries": list(queries), "topk": k, "return_scores": True}
        status, answer = self._request("POST", "/retrieve", json=body)
        if status >= 400:
            raise RetrieverError(f"retrieval service refused the request: HTTP {status} {answer}")
        try:
            results = answer["result"]
            if not isinstance(results, list) or len(results) != len(queries):
                raise ValueError(f"{len(queries)} result lists expected")
            out = [[Hit(_passage(item["document"]), _score(item.get("score", 0.0)))
                    for item in per_query] for per_query in results]
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise RetrieverUnavailable(f"retrieval service sent a malformed answer: "
                                       f"{type(e).__name__}: {e}") from e
        for hits in out:
            for hit in hits:
                self.seen[hit.doc_id] = hit.passage
        return out

    def get(self, doc_id: str) -> Passage | None:
        """``GET /passages/{id}``; a server without it: a passage seen in earlier results."""
        status, answer = self._request("GET", f"/passages/{quote(str(doc_id), safe='')}")
        if status == 200:
            try:
                return _passage(answer)
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                raise RetrieverUnavailable(f"retrieval service sent a malformed passage: "
                                           f"{type(e).__name__}: {e}") from e
        return self.seen.get(doc_id)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self.client.close()


def _passage(record: Any) -> Passage:
    """A Search-R1 record from a service: an object with a string ``id`` and ``contents``."""
    if not isinstance(record, dict):
        raise TypeError("a document must be an object")
    if not isinstance(record.get("id"), str | int) or isinstance(record.get("id"), bool):
        raise TypeError("a document needs a string id")
    if not isinstance(record.get("contents", ""), str):
        raise TypeError("a document's contents must be text")
    return Passage.from_record(record)


def _score(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"a score must be a number, got {str(value)[:20]!r}")
    return float(value)
