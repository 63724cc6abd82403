"""Retrievers behind one interface: BM25 (bm25s), dense (sentence-transformers), hybrid (RRF)
and a client of a remote Search-R1-compatible service."""

from __future__ import annotations

from .base import (
    MAX_K,
    Hit,
    IndexBuildError,
    PassageStore,
    Retriever,
    RetrieverError,
    RetrieverUnavailable,
    check_k,
)
from .hybrid import HybridRetriever, rrf_fuse
from .remote import RemoteRetriever

__all__ = [
    "MAX_K",
    "Hit",
    "HybridRetriever",
    "IndexBuildError",
    "PassageStore",
    "RemoteRetriever",
    "Retriever",
    "RetrieverError",
    "RetrieverUnavailable",
    "check_k",
    "rrf_fuse",
]
