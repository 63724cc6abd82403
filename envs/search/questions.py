"""Questions over the generated encyclopedia: 1, 2 and 3 hops, bridge and comparison.

A *bridge* question follows a chain of facts from a named entity (``the creator of X`` ->
``where that person was born`` -> ``which country that city is in``); a *comparison* question
compares one fact of two entities of the same kind (HotpotQA and 2WikiMultiHopQA's two types).
Each question carries its gold answer with aliases, the ids of the passages that state the facts
it needs, and the search queries of its hops (what the scripted expert looks up).

Questions are split by cluster: a seeded shuffle puts ``test_fraction`` of the clusters in
``test`` and the rest in ``train``, so no test entity appears in (or answers) a train question.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from typing import Any

from .corpus import Corpus
from .world import Entity, World

# (start kind, fact keys followed in order, question template); {x} is the start entity's name.
ONE_HOP = (
    ("person", ("born",), "In what year was {x} born?"),
    ("person", ("birthplace_id",), "In which city was {x} born?"),
    ("person", ("occupation",), "What was the occupation of {x}?"),
    ("person", ("employer_id",), "Which organisation did {x} work for?"),
    ("person", ("died",), "In what year did {x} die?"),
    ("work", ("creator_id",), "Who created {x}?"),
    ("work", ("year",), "In what year was {x} completed?"),
    ("organisation", ("founder_id",), "Who founded the {x}?"),
    ("organisation", ("hq_id",), "In which city is the {x} headquartered?"),
    ("organisation", ("founded",), "In what year was the {x} founded?"),
    ("city", ("country_id",), "In which country is the city of {x}?"),
    ("city", ("river",), "Which river flows through {x}?"),
    ("city", ("founded",), "In what year was the city of {x} founded?"),
    ("country", ("capital_id",), "What is the capital of {x}?"),
    ("country", ("currency",), "What is the currency of {x}?"),
    ("country", ("language",), "What is the official language of {x}?"),
    ("event", ("location_id",), "In which city did the {x} take place?"),
    ("event", ("organiser_id",), "Which organisation organised the {x}?"),
)
TWO_HOP = (
    ("work", ("creator_id", "born"), "In what year was the creator of {x} born?"),
    ("work", ("creator_id", "birthplace_id"), "In which city was the creator of {x} born?"),
    ("organisation", ("founder_id", "birthplace_id"), "In which city was the founder of the {x} "
     "born?"),
    ("organisation", ("founder_id", "born"), "In what year was the founder of the {x} born?"),
    ("person", ("employer_id", "hq_id"), "In which city is the organisation that {x} worked for "
     "headquartered?"),
    ("person", ("employer_id", "founder_id"), "Who founded the organisation that {x} worked for?"),
    ("person", ("birthplace_id", "country_id"), "In which country was {x} born?"),
    ("person", ("birthplace_id", "river"), "Which river flows through the city where {x} was "
     "born?"),
    ("organisation", ("hq_id", "country_id"), "In which country is the {x} headquartered?"),
    ("event", ("location_id", "country_id"), "In which country did the {x} take place?"),
    ("event", ("organiser_id", "founder_id"), "Who founded the organisation that organised the "
     "{x}?"),
    ("country", ("capital_id", "river"), "Which river flows through the capital of {x}?"),
)
THREE_HOP = (
    ("work", ("creator_id", "birthplace_id", "country_id"), "In which country was the creator "
     "of {x} born?"),
    ("work", ("creator_id", "employer_id", "founder_id"), "Who founded the organisation that "
     "the creator of {x} worked for?"),
    ("work", ("creator_id", "employer_id", "hq_id"), "In which city is the organisation that "
     "the creator of {x} worked for headquartered?"),
    ("person", ("employer_id", "founder_id", "birthplace_id"), "In which city was the founder "
     "of the organisation that {x} worked for born?"),
    ("organisation", ("founder_id", "birthplace_id", "country_id"), "In which country was the "
     "founder of the {x} born?"),
    ("event", ("organiser_id", "hq_id", "country_id"), "In which country is the organisation "
     "that organised the {x} headquartered?"),
    ("event", ("organiser_id", "founder_id", "born"), "In what year was the founder of the "
     "organisation that organised the {x} born?"),
)
# (kind, compared numeric fact, question template with {a} and {b}); the smaller value wins
COMPARISON = (
    ("person", "born", "Who was born first, {a} or {b}?"),
    ("organisation", "founded", "Which was founded first, the {a} or the {b}?"),
    ("work", "year", "Which was completed earlier, {a} or {b}?"),
    ("city", "founded", "Which city was founded earlier, {a} or {b}?"),
)
PER_CLUSTER = {"1hop": 6, "2hop": 4, "comparison": 2, "3hop": 3}
"""Questions drawn per cluster, by kind."""


@dataclass
class QAItem:
    """One question with its gold answers and evidence."""

    qid: str
    question: str
    answers: list[str]
    """The gold answer first, then aliases; any of them counts as exact match."""
    split: str = "test"
    hops: int = 1
    kind: str = "single"
    """``single`` (1 hop), ``bridge`` or ``comparison``."""
    supporting: list[str] = field(default_factory=list)
    """Ids of the passages that state the needed facts."""
    queries: list[str] = field(default_factory=list)
    """One search query per hop (the entity looked up at that hop)."""
    cluster: int = -1
    template: str = ""

    def to_record(self) -> dict[str, Any]:
        """A JSON-able dict (the fields of the generated QA JSONL)."""
        return asdict(self)


def _answers(value: Any) -> list[str]:
    """The gold answer and its aliases for a fact's value."""
    if isinstance(value, Entity):
        return [value.name, *value.aliases]
    return [str(value)]


def _world(corpus: Corpus) -> World:
    """The world behind a generated corpus (loaded corpora have none)."""
    if corpus.world is None:
        raise ValueError("questions can only be generated for a generated corpus")
    return corpus.world


def _follow(corpus: Corpus, start: Entity, keys: tuple[str, ...]) -> tuple[Any, list[str],
                                                                           list[str]]:
    """Walk ``keys`` from ``start``: (final value, supporting passage ids, per-hop queries)."""
    world = _world(corpus)
    ent, value = start, None
    supporting, queries = [], []
    for key in keys:
        supporting.append(corpus.fact_passage[(ent.eid, key)])
        queries.append(ent.name)
        value = ent.attrs[key]
        if key.endswith("_id"):
            value = world.get(value)
            ent = value
    return value, supporting, queries


def _bridge(corpus: Corpus, c: int, rng: random.Random, templates: tuple[Any, ...],
            hops: int) -> QAItem:
    kind, keys, text = rng.choice(templates)
    start = rng.choice(_world(corpus).of_kind(c, kind))
    value, supporting, queries = _follow(corpus, start, keys)
    return QAItem("", text.format(x=start.name), _answers(value), hops=hops,
                  kind="single" if hops == 1 else "bridge", supporting=supporting,
                  queries=queries, cluster=c, template="/".join((kind, *keys)))


def _comparison(corpus: Corpus, c: int, rng: random.Random) -> QAItem | None:
    kind, key, text = rng.choice(COMPARISON)
    a, b = rng.sample(_world(corpus).of_kind(c, kind), 2)
    if a.attrs[key] == b.attrs[key]:
        return None
    winner = a if a.attrs[key] < b.attrs[key] else b
    return QAItem("", text.format(a=a.name, b=b.name), [winner.name, *winner.aliases], hops=2,
                  kind="comparison",
                  supporting=[corpus.fact_passage[(a.eid, key)], corpus.fact_passage[(b.eid, key)]],
                  queries=[a.name, b.name], cluster=c, template=f"compare/{kind}/{key}")


def generate_questions(corpus: Corpus, seed: int = 0, test_fraction: float = 0.2,
                       per_cluster: dict[str, int] | None = None) -> list[QAItem]:
    """Draw questions for every cluster of a generated corpus and split them by cluster."""
    rng = random.Random(seed + 2)
    n = len(_world(corpus).clusters)
    order = list(range(n))
    rng.shuffle(order)
    test_clusters = set(order[: max(1, round(n * test_fraction))])
    counts = per_cluster or PER_CLUSTER
    items: list[QAItem] = []
    for c in range(n):
        seen: set[str] = set()
        drawn: list[QAItem] = []
        for kind, count in counts.items():
            tries = 0
            while sum(1 for q in drawn if _kind_of(q) == kind) < count and tries < 50:
                tries += 1
                item: QAItem | None
                if kind == "comparison":
                    item = _comparison(corpus, c, rng)
                else:
                    hops = {"1hop": 1, "2hop": 2, "3hop": 3}[kind]
                    templates = {1: ONE_HOP, 2: TWO_HOP, 3: THREE_HOP}[hops]
                    item = _bridge(corpus, c, rng, templates, hops)
                if item is None or item.question in seen:
                    continue
                seen.add(item.question)
                drawn.append(item)
        for item in drawn:
            item.qid = f"q{len(items):05d}"
            item.split = "test" if c in test_clusters else "train"
            items.append(item)
    return items


def _kind_of(item: QAItem) -> str:
    """``1hop``, ``2hop``, ``3hop`` or ``comparison`` (the keys of :data:`PER_CLUSTER`)."""
    return "comparison" if item.kind == "comparison" else f"{item.hops}hop"
