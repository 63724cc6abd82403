"""Recall@1/5/10 of the BM25, dense and hybrid retrievers on the test questions' evidence.

Run ``python benchmarks/search_recall.py [--clusters N] [--retrievers bm25,dense,hybrid]``.
Each test question is searched with its own text; recall@k is the share of its supporting
passages (one per hop) found in the top k, averaged over questions, overall and by hop count.
A 2- or 3-hop question names only its first entity, so its later hops' passages are out of
reach of one search by design (an agent has to search again): recall@k of multi-hop questions
is bounded by 1/hops plus whatever co-mentions bring.

``--clusters`` generates a smaller encyclopedia (the first N clusters of the same world; the
default is the bundled 230): embedding 10k passages with MiniLM on a loaded 2-core machine is
slow, so the dense figures may come from a smaller corpus; the script prints the size used.
The last line is ``hybrid_vs_bm25_recall_at_5_ratio=...``.
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console

from agentgym.envs.search.corpus import DEFAULT_CLUSTERS, generate_corpus
from agentgym.envs.search.data import build_retriever, generated_key, search_cache
from agentgym.envs.search.questions import generate_questions

console = Console(stderr=True)
KS = (1, 5, 10)


def main() -> None:
    """Measure and print one row per retriever; the last line is the headline ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=DEFAULT_CLUSTERS)
    parser.add_argument("--retrievers", default="bm25,dense,hybrid")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    corpus = generate_corpus(args.seed, args.clusters)
    questions = [q for q in generate_questions(corpus, args.seed) if q.split == "test"]
    folder = search_cache() / generated_key(args.seed, args.clusters)
    print(f"corpus: {len(corpus)} passages ({args.clusters} clusters); "
          f"{len(questions)} test questions")
    at5: dict[str, float] = {}
    for kind in args.retrievers.split(","):
        start = time.perf_counter()
        with console.status(f"building/loading the {kind} index"):
            retriever = build_retriever(
                kind, corpus, folder,
                progress=lambda d, t: console.log(f"embedded {d}/{t} passages"))
        built = time.perf_counter() - start
        start = time.perf_counter()
        hits = retriever.batch_search([q.question for q in questions], max(KS))
        searched = time.perf_counter() - start
        rows = []
        for hop in (None, 1, 2, 3):
            chosen = [(q, h) for q, h in zip(questions, hits, strict=True)
                      if hop is None or q.hops == hop]
            recalls = []
            for k in KS:
                per_q = [len(set(q.supporting) & {x.doc_id for x in h[:k]}) / len(q.supporting)
                         for q, h in chosen]
                recalls.append(sum(per_q) / len(per_q))
            label = "all" if hop is None else f"{hop}-hop"
            rows.append(f"{label}: " + " ".join(f"R@{k}={r:.3f}" for k, r in
                                                 zip(KS, recalls, strict=True)))
            if hop is None:
                at5[kind] = recalls[1]
        print(f"{kind:7s} index {built:6.1f}s, {len(questions)} queries {searched:5.1f}s | "
              + " | ".join(rows))
    if "hybrid" in at5 and "bm25" in at5:
        print(f"hybrid_vs_bm25_recall_at_5_ratio={at5['hybrid'] / at5['bm25']:.2f}")


if __name__ == "__main__":
    main()
