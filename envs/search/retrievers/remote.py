"""A retriever that calls a Search-R1-compatible ``POST /retrieve`` service over HTTP.

Works with this project's service (``agentgym serve-retriever``) and with Search-R1's own
``retrieval_server.py``. Passage lookup by id (``open``) uses this project's extension
``GET /passages/{id}``; against a server without it, ``get`` answers from the passages seen in
earlier results. A refused connection, a timeout or a 5xx raises :class:`RetrieverUnavailable`
(an infrastructure failure); a 4xx raises :class:`RetrieverError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import httpx

from ..corpus import Passage
from .base import Hit, Retriever, RetrieverError, RetrieverUnavailable, check_k


class RemoteRetriever(Retriever):
    """Client of a ``/retrieve`` service; one pooled ``httpx.Client`` per instance."""

    name = "remote"

    def __init__(self, url: str, timeout_s: float = 30.0) -> None:
        """``url`` is the service root (``http://127.0.0.1:8000``) or its ``/retrieve`` URL."""
        self.base = url.rstrip("/").removesuffix("/retrieve")
        self.client = httpx.Client(timeout=timeout_s)
        self.seen: dict[str, Passage] = {}

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self.client.request(method, self.base + path, **kwargs)
        except httpx.HTTPError as e:
            raise RetrieverUnavailable(f"retrieval service {self.base}: {e}") from e
        if response.status_code >= 500:
            raise RetrieverUnavailable(
                f"retrieval service {self.base}: HTTP {response.status_code}")
        return response

    def batch_search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """POST the queries to ``/retrieve`` and parse ``{"result": [[{document, score}]]}``."""
        check_k(k)
        body = {"queries": list(queries), "topk": k, "return_scores": True}
        response = self._request("POST", "/retrieve", json=body)
        if response.status_code >= 400:
            raise RetrieverError(f"retrieval service refused the request: "
                                 f"HTTP {response.status_code} {response.text[:200]}")
        try:
            results = response.json()["result"]
            out = [[Hit(Passage.from_record(item["document"]), float(item.get("score", 0.0)))
                    for item in per_query] for per_query in results]
        except (ValueError, KeyError, TypeError) as e:
            raise RetrieverUnavailable(f"retrieval service sent a malformed answer: {e}") from e
        for hits in out:
            for hit in hits:
                self.seen[hit.doc_id] = hit.passage
        return out

    def get(self, doc_id: str) -> Passage | None:
        """``GET /passages/{id}``; a server without it: a passage seen in earlier results."""
        response = self._request("GET", f"/passages/{quote(str(doc_id), safe='')}")
        if response.status_code == 200:
            return Passage.from_record(response.json())
        return self.seen.get(doc_id)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self.client.close()
