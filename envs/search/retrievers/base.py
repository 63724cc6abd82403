"""The retriever interface shared by BM25, dense, hybrid and remote retrieval.

A retriever answers a batch of queries with the top-``k`` passages of each (:class:`Hit`) and
looks passages up by id (what the env's ``open`` tool shows). ``Hit.to_search_r1`` gives the
item shape of Search-R1's ``/retrieve`` response.

Errors::

    RetrieverError
    ├── IndexBuildError        an index cannot be built or loaded
    └── RetrieverUnavailable   a remote service cannot be reached (also an InfrastructureError)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentgym.errors import AgentGymError, InfrastructureError

from ..corpus import Passage

MAX_K = 100
"""Largest ``k`` a retriever accepts."""


class RetrieverError(AgentGymError):
    """Base of the retrieval errors."""


class IndexBuildError(RetrieverError):
    """An index cannot be built or loaded."""


class RetrieverUnavailable(RetrieverError, InfrastructureError):
    """A remote retrieval service cannot be reached or answered with a server error.

    An :class:`~agentgym.errors.InfrastructureError`: the env retries the (read-only) call once,
    then the episode is aborted, never scored as the model's failure.
    """

    def __init__(self, message: str) -> None:
        InfrastructureError.__init__(self, message, retryable=True)


@dataclass(frozen=True)
class Hit:
    """One retrieved passage with its score (higher is better)."""

    passage: Passage
    score: float

    @property
    def doc_id(self) -> str:
        """The passage id."""
        return self.passage.id

    def to_search_r1(self, return_scores: bool = True) -> dict[str, Any]:
        """``{"document": {"id", "contents"}, "score"}`` (only the document without scores)."""
        doc = {"id": self.passage.id, "contents": self.passage.contents}
        return {"document": doc, "score": self.score} if return_scores else doc


def check_k(k: int) -> int:
    """``k`` if it is in ``1..MAX_K``; ``ValueError`` otherwise."""
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise ValueError(f"k must be an integer from 1 to {MAX_K}, not {k!r}")
    return k


class Retriever(ABC):
    """Top-k passage retrieval over one corpus."""

    name: str = "retriever"

    @abstractmethod
    def batch_search(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """The top-``k`` hits of every query, best first."""

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The top-``k`` hits of one query, best first."""
        return self.batch_search([query], k)[0]

    @abstractmethod
    def get(self, doc_id: str) -> Passage | None:
        """The passage with id ``doc_id``, or None."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (connections); the default holds none."""


class PassageStore:
    """Passages by id and by row, shared by the in-process retrievers."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages = list(passages)
        self.row_of = {p.id: i for i, p in enumerate(self.passages)}

    def get(self, doc_id: str) -> Passage | None:
        """The passage with id ``doc_id``, or None."""
        row = self.row_of.get(str(doc_id))
        return None if row is None else self.passages[row]

    def __len__(self) -> int:
        return len(self.passages)
