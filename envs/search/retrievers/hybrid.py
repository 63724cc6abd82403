"""Hybrid retrieval: reciprocal rank fusion (Cormack et al., 2009) of several retrievers.

Each member returns its top ``depth`` passages; a passage's fused score is the sum over members
of ``1 / (rrf_k + rank)`` (rank from 1), and the top ``k`` fused passages are returned.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..corpus import Passage
from .base import Hit, Retriever, check_k


def rrf_fuse(rankings: Sequence[Sequence[Hit]], k: int, rrf_k: int = 60) -> list[Hit]:
    """Fuse ranked hit lists by reciprocal rank; ties keep the first list's order."""
    scores: dict[str, float] = {}
    passages: dict[str, Passage] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, 1):
            scores[hit.doc_id] = scores.get(hit.doc_id, 0.0) + 1.0 / (rrf_k + rank)
            passages.setdefault(hit.doc_id, hit.passage)
    order = sorted(scores, key=lambda d: -scores[d])[:k]
    return [Hit(passages[d], scores[d]) for d in order]


class HybridRetriever(Retriever):
    """Reciprocal rank fusion of member retrievers (BM25 and dense by default)."""

    name = "hybrid"

    def __init__(self, members: Sequence[Retriever], depth: int = 50, rrf_k: int = 60) -> None:
        """Fuse ``members``' top ``depth`` lists with constant ``rrf_k``."""
        if not members:
            raise ValueError("a hybrid retriever needs at least one member")
        self.members = list(members)
        self.depth = depth
        self.rrf_k = rrf_k

    def batch_search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """The fused top-``k`` of every query."""
        check_k(k)
        depth = max(k, self.depth)
        per_member = [m.batch_search(queries, depth) for m in self.members]
        return [rrf_fuse([lists[i] for lists in per_member], k, self.rrf_k)
                for i in range(len(queries))]

    def get(self, doc_id: str) -> Passage | None:
        """The passage from the first member that has it."""
        for m in self.members:
            found = m.get(doc_id)
            if found is not None:
                return found
        return None
