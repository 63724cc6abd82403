"""Search family: a generated encyclopedia, BM25/dense/hybrid retrieval, a Search-R1-compatible
service and question-answering envs (``search/qa-v0`` and variants).

:func:`generate_corpus` writes the fictional encyclopedia (Search-R1 JSONL),
:func:`generate_questions` its 1-3 hop questions split by entity cluster; the retrievers live
in :mod:`.retrievers`, the HTTP service in :mod:`.service`, the env in :mod:`.env`.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Corpus": ".corpus",
    "Passage": ".corpus",
    "QAItem": ".questions",
    "SearchData": ".data",
    "build_retriever": ".data",
    "exact_match": ".scoring",
    "Hit": ".retrievers",
    "HybridRetriever": ".retrievers",
    "IndexBuildError": ".retrievers",
    "RemoteRetriever": ".retrievers",
    "Retriever": ".retrievers",
    "RetrieverError": ".retrievers",
    "RetrieverUnavailable": ".retrievers",
    "f1_score": ".scoring",
    "generate_corpus": ".corpus",
    "generate_questions": ".questions",
    "generated_data": ".data",
    "load_corpus_jsonl": ".corpus",
    "load_qa_jsonl": ".loaders",
    "normalize_answer": ".scoring",
    "qa_from_record": ".loaders",
    "score_answer": ".scoring",
    "search_cache": ".data",
}
"""Public name -> the submodule defining it."""

__all__ = [
    "Corpus",
    "Hit",
    "HybridRetriever",
    "IndexBuildError",
    "Passage",
    "QAItem",
    "RemoteRetriever",
    "Retriever",
    "RetrieverError",
    "RetrieverUnavailable",
    "SearchData",
    "build_retriever",
    "exact_match",
    "f1_score",
    "generate_corpus",
    "generate_questions",
    "generated_data",
    "load_corpus_jsonl",
    "load_qa_jsonl",
    "normalize_answer",
    "qa_from_record",
    "score_answer",
    "search_cache",
]


def __getattr__(name: str) -> Any:
    """Import the names of ``__all__`` on first use (listing the envs imports none of them)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
