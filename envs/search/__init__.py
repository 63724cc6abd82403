"""Search family: a generated encyclopedia, BM25/dense/hybrid retrieval, a Search-R1-compatible
service and question-answering envs (``search/qa-v0`` and variants).

:func:`generate_corpus` writes the fictional encyclopedia (Search-R1 JSONL),
:func:`generate_questions` its 1-3 hop questions split by entity cluster; the retrievers live
in :mod:`.retrievers`, the HTTP service in :mod:`.service`, the env in :mod:`.env`.
"""

from __future__ import annotations

from .corpus import Corpus, Passage, generate_corpus, load_corpus_jsonl
from .data import SearchData, build_retriever, generated_data, search_cache
from .loaders import load_qa_jsonl, qa_from_record
from .questions import QAItem, generate_questions
from .retrievers import (
    Hit,
    HybridRetriever,
    IndexBuildError,
    RemoteRetriever,
    Retriever,
    RetrieverError,
    RetrieverUnavailable,
)
from .scoring import exact_match, f1_score, normalize_answer, score_answer

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
