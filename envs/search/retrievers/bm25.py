"""BM25 retrieval with ``bm25s`` (sparse matrices over numpy/scipy; no Java, no server).

The index is built once from the passages' ``contents`` (title and text), saved in a folder and
loaded back memory-mapped (``bm25s.BM25.load(..., mmap=True)``), so several processes share the
page cache instead of each holding a copy.
"""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentgym.errors import missing_extra

from ..corpus import Passage
from .base import Hit, IndexBuildError, PassageStore, Retriever, check_k

logger = logging.getLogger(__name__)
_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_MARKER = "COMPLETE"


def _bm25s() -> Any:
    try:
        import bm25s
    except ImportError as e:
        raise missing_extra("bm25s", "search") from e
    return bm25s


def tokenize(texts: Sequence[str], stopwords: frozenset[str]) -> list[list[str]]:
    """Lower-cased word tokens of each text without stopwords (bm25s' default pattern)."""
    return [[t for t in _TOKEN.findall(x.lower()) if t not in stopwords] for x in texts]


class BM25Retriever(Retriever):
    """Okapi BM25 (Lucene variant, k1=1.5, b=0.75) over a list of passages."""

    name = "bm25"

    def __init__(self, passages: Sequence[Passage], index_dir: str | Path | None = None,
                 mmap: bool = True) -> None:
        """Load the index from ``index_dir`` when it is there, else build it (and save it there).

        Args:
            passages: the corpus, in the order the index was built from.
            index_dir: folder for the saved index; None keeps it in memory only.
            mmap: load a saved index memory-mapped.
        """
        bm25s = _bm25s()
        self.store = PassageStore(passages)
        self.stopwords = frozenset(bm25s.stopwords.STOPWORDS_EN)
        folder = Path(index_dir) if index_dir is not None else None
        if folder is not None and (folder / _MARKER).exists():
            try:
                self.model = bm25s.BM25.load(str(folder), mmap=mmap, load_corpus=False)
            except (OSError, ValueError) as e:
                raise IndexBuildError(f"cannot load the BM25 index in {folder}: {e}") from e
            if self.model.scores["num_docs"] != len(self.store):
                raise IndexBuildError(
                    f"BM25 index in {folder} holds {self.model.scores['num_docs']} passages, "
                    f"the corpus {len(self.store)}: delete the folder to rebuild it")
            return
        self.model = bm25s.BM25()
        tokens = tokenize([p.contents for p in self.store.passages], self.stopwords)
        self.model.index(tokens, show_progress=False)
        if folder is not None:
            self._save(folder)

    def _save(self, folder: Path) -> None:
        tmp = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        self.model.save(str(tmp), show_progress=False)
        (tmp / _MARKER).write_text("ok\n")
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
        logger.info("saved BM25 index of %d passages in %s", len(self.store), folder)

    def batch_search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """BM25 top-``k`` of each query; a query with no known word gets no hits."""
        check_k(k)
        vocab = self.model.vocab_dict
        tokens = [[t for t in q if t in vocab] for q in tokenize(queries, self.stopwords)]
        results: list[list[Hit]] = [[] for _ in queries]
        live = [i for i, t in enumerate(tokens) if t]
        if not live:
            return results
        k_eff = min(k, len(self.store))
        docs, scores = self.model.retrieve([tokens[i] for i in live], k=k_eff,
                                           show_progress=False, n_threads=1)
        for row, i in enumerate(live):
            results[i] = [
                Hit(self.store.passages[int(d)], float(s))
                for d, s in zip(docs[row], scores[row], strict=True)
                if s > 0
            ]
        return results

    def get(self, doc_id: str) -> Passage | None:
        """The passage with id ``doc_id``, or None."""
        return self.store.get(doc_id)
