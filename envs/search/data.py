"""The bundled dataset and its on-disk cache: corpus, questions and retrieval indexes.

The encyclopedia is generated from a seed (no data ships in git), written once as Search-R1
JSONL under ``$AGENTGYM_CACHE/search/<corpus key>/`` together with the questions and the BM25
and dense indexes, and loaded from there afterwards::

    <cache>/search/gen-s0-c230-v1/corpus.jsonl      Search-R1 corpus
    <cache>/search/gen-s0-c230-v1/qa.jsonl          questions (gold answers, evidence, split)
    <cache>/search/gen-s0-c230-v1/bm25/             bm25s index (memory-mapped)
    <cache>/search/gen-s0-c230-v1/dense-all-MiniLM-L6-v2/embeddings.npy

A user corpus (``corpus_path``) gets a key from its file name, size and modification time.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agentgym.models import cache_dir

from .corpus import DEFAULT_CLUSTERS, Corpus, generate_corpus, load_corpus_jsonl
from .questions import QAItem, generate_questions
from .retrievers.base import Retriever

FORMAT_VERSION = 1
RETRIEVERS = ("bm25", "dense", "hybrid")
_lock = threading.Lock()


@dataclass
class SearchData:
    """A corpus, its questions and the folder where its indexes are cached."""

    corpus: Corpus
    questions: list[QAItem]
    folder: Path


def search_cache() -> Path:
    """``$AGENTGYM_CACHE/search``."""
    return cache_dir() / "search"


def generated_key(seed: int, n_clusters: int) -> str:
    """Cache folder name of a generated corpus."""
    return f"gen-s{seed}-c{n_clusters}-v{FORMAT_VERSION}"


def file_key(path: Path) -> str:
    """Cache folder name of a user corpus file (name, size, modification time)."""
    st = path.stat()
    digest = hashlib.sha256(f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode())
    return f"file-{path.stem}-{digest.hexdigest()[:12]}"


@cache
def generated_data(seed: int = 0, n_clusters: int = DEFAULT_CLUSTERS) -> SearchData:
    """The generated corpus and questions, written to the cache on first use."""
    with _lock:
        corpus = generate_corpus(seed, n_clusters)
        questions = generate_questions(corpus, seed)
        folder = search_cache() / generated_key(seed, n_clusters)
        if not (folder / "qa.jsonl").exists():
            corpus.write_jsonl(folder / "corpus.jsonl")
            tmp = folder / "qa.jsonl.tmp"
            tmp.write_text("".join(json.dumps(q.to_record()) + "\n" for q in questions))
            tmp.replace(folder / "qa.jsonl")
        return SearchData(corpus, questions, folder)


@cache
def file_corpus(path: str) -> tuple[Corpus, Path]:
    """A user's Search-R1 corpus file and its cache folder."""
    p = Path(path)
    return load_corpus_jsonl(p), search_cache() / file_key(p)


def build_retriever(kind: str, corpus: Corpus, folder: Path | None,
                    progress: Callable[[int, int], None] | None = None) -> Retriever:
    """A ``bm25``, ``dense`` or ``hybrid`` retriever over ``corpus``, indexes cached in ``folder``.

    ``folder=None`` keeps the indexes in memory (small test corpora).
    """
    from .retrievers.bm25 import BM25Retriever
    from .retrievers.dense import MODEL_NAME, DenseRetriever
    from .retrievers.hybrid import HybridRetriever

    if kind == "bm25":
        return BM25Retriever(corpus.passages, folder / "bm25" if folder else None)
    if kind == "dense":
        return DenseRetriever(corpus.passages, folder / f"dense-{MODEL_NAME}" if folder else None,
                              progress=progress)
    if kind == "hybrid":
        return HybridRetriever([build_retriever("bm25", corpus, folder),
                                build_retriever("dense", corpus, folder, progress)])
    raise ValueError(f"retriever must be one of {', '.join(RETRIEVERS)}, not {kind!r}")


_retrievers: dict[tuple[str, str], Retriever] = {}


def shared_retriever(kind: str, corpus: Corpus, folder: Path) -> Retriever:
    """One retriever per (kind, cache folder) in this process, built on first use."""
    key = (kind, str(folder))
    with _lock:
        if key not in _retrievers:
            _retrievers[key] = build_retriever(kind, corpus, folder)
        return _retrievers[key]
