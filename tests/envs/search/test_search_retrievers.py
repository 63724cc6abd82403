"""BM25, dense and hybrid retrieval behind one interface; index caching; RRF by hand."""

from __future__ import annotations

import numpy as np
import pytest

from agentgym.envs.search.corpus import Passage, passages_from_texts
from agentgym.envs.search.retrievers import Hit, HybridRetriever, rrf_fuse
from agentgym.envs.search.retrievers.bm25 import BM25Retriever

TEXTS = [
    '"Osterbrook"\nOsterbrook is a city on the Vella River, known for copper.',
    '"Alaric Vennholt"\nAlaric Vennholt was a cartographer born in Osterbrook in 1843.',
    '"Guild of Tallmere"\nThe Guild of Tallmere was founded in 1870 by Alaric Vennholt.',
    '"Treaty of Kelvamar"\nThe Treaty of Kelvamar was signed in Osterbrook in 1901.',
]


def _ids(hits: list[Hit]) -> list[str]:
    return [h.doc_id for h in hits]


def test_bm25_finds_by_title_and_words():
    r = BM25Retriever(passages_from_texts(TEXTS))
    assert _ids(r.search("Treaty of Kelvamar", 1)) == ["3"]
    assert _ids(r.search("who founded the Guild of Tallmere?", 2))[0] == "2"
    assert r.search("zzzz qqq", 3) == [] and r.search("", 3) == []
    assert r.batch_search(["cartographer", "zebra quartz"], 2)[1] == []
    assert len(r.search("Osterbrook", 10)) == 3  # only passages that match, k capped by corpus
    assert r.get("1").title == "Alaric Vennholt" and r.get("99") is None
    with pytest.raises(ValueError):
        r.search("x", 0)
    with pytest.raises(ValueError):
        r.search("x", 101)


def test_bm25_index_saved_once_and_loaded_memory_mapped(tmp_path, small_corpus):
    folder = tmp_path / "bm25"
    built = BM25Retriever(small_corpus.passages, folder)
    assert (folder / "COMPLETE").exists()
    loaded = BM25Retriever(small_corpus.passages, folder)
    data = loaded.model.scores["data"]
    assert isinstance(data, np.memmap) or isinstance(getattr(data, "base", None), np.memmap)
    q = [small_corpus.passages[i].title for i in (0, 40, 200)]
    before, after = built.batch_search(q, 5), loaded.batch_search(q, 5)
    assert [_ids(h) for h in before] == [_ids(h) for h in after]
    with pytest.raises(Exception, match="delete the folder"):
        BM25Retriever(small_corpus.passages[:10], folder)


def test_bm25_recall_on_one_hop_questions(small_corpus, small_questions):
    r = BM25Retriever(small_corpus.passages)
    one_hop = [q for q in small_questions if q.hops == 1]
    hits = r.batch_search([q.question for q in one_hop], 5)
    recall = np.mean([q.supporting[0] in _ids(h) for q, h in zip(one_hop, hits, strict=True)])
    assert recall > 0.7


def test_rrf_fuse_by_hand():
    p = {i: Passage(str(i), "", "") for i in range(4)}
    a = [Hit(p[0], 9.0), Hit(p[1], 8.0), Hit(p[2], 7.0)]
    b = [Hit(p[2], 0.9), Hit(p[0], 0.8), Hit(p[3], 0.7)]
    fused = rrf_fuse([a, b], k=3, rrf_k=60)
    # 0: 1/61 + 1/62; 2: 1/63 + 1/61; 1: 1/62; 3: 1/63
    assert _ids(fused) == ["0", "2", "1"]
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62)


class _Fixed:
    """A stand-in retriever with fixed rankings (the interface, no index)."""

    name = "fixed"

    def __init__(self, order: list[int]) -> None:
        self.order = order

    def batch_search(self, queries, k=5):
        return [[Hit(Passage(str(i), "", ""), 1.0) for i in self.order[:k]] for _ in queries]

    def get(self, doc_id):
        return Passage(doc_id, "", "") if int(doc_id) in self.order else None


def test_hybrid_fuses_members():
    h = HybridRetriever([_Fixed([0, 1, 2]), _Fixed([2, 0, 3])], depth=3)  # type: ignore[list-item]
    assert _ids(h.search("q", 2)) == ["0", "2"]
    assert h.get("3") is not None and h.get("9") is None


def test_dense_retriever_with_the_bundled_model(tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("all_minilm_l6_v2")
    from agentgym.envs.search.retrievers.dense import DenseRetriever

    passages = passages_from_texts(TEXTS)
    folder = tmp_path / "dense"
    r = DenseRetriever(passages, folder)
    assert (folder / "embeddings.npy").exists()
    assert _ids(r.search("a map maker born in 1843", 1)) == ["1"]
    again = DenseRetriever(passages, folder)  # loaded, not recomputed
    assert isinstance(again.embeddings, np.memmap)
    assert np.allclose(np.linalg.norm(np.asarray(again.embeddings), axis=1), 1.0, atol=1e-4)
    hybrid = HybridRetriever([BM25Retriever(passages), r])
    assert _ids(hybrid.search("Treaty of Kelvamar", 1)) == ["3"]
