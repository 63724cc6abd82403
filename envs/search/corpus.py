"""Render the fictional world as an encyclopedia of short passages in Search-R1's format.

Each entity gets an article of sentences; sentences are grouped into passages of
``SENTENCES_PER_PASSAGE`` (wiki-18 is chunked the same way, about 100 words a passage). A
passage is one JSONL line ``{"id": "17", "contents": "\\"Title\\"\\nText"}``. Every fact
sentence remembers which passage it landed in, so questions can name their supporting passages.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .world import Entity, World, build_world

SENTENCES_PER_PASSAGE = 3
DEFAULT_CLUSTERS = 230
_ADJ = ("patient", "restless", "generous", "exacting", "quiet", "witty", "stubborn", "curious")
_GOODS = ("salt", "copper", "wool", "glassware", "spices", "timber", "paper", "silk")


def _a(word: str) -> str:
    """``word`` with its indefinite article (``an orchestra``, ``a novel``)."""
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


@dataclass(frozen=True)
class Passage:
    """One retrievable unit: an id, the title of its article and its text."""

    id: str
    title: str
    text: str

    @property
    def contents(self) -> str:
        """Search-R1's ``contents`` field: the quoted title, a newline, the text."""
        return f'"{self.title}"\n{self.text}'

    def to_json(self) -> str:
        """The JSONL line of this passage."""
        return json.dumps({"id": self.id, "contents": self.contents}, ensure_ascii=False)

    @classmethod
    def from_record(cls, record: dict[str, object]) -> Passage:
        """Parse a Search-R1 record; a ``contents`` without a quoted first line has no title."""
        contents = str(record.get("contents", ""))
        head, sep, rest = contents.partition("\n")
        if sep and len(head) >= 2 and head.startswith('"') and head.endswith('"'):
            return cls(str(record["id"]), head[1:-1], rest)
        return cls(str(record["id"]), str(record.get("title", "")), contents)


@dataclass
class Corpus:
    """The passages and, for the generated world, where each fact is stated."""

    passages: list[Passage]
    fact_passage: dict[tuple[str, str], str]
    """``(entity id, fact key)`` -> id of the passage stating it (empty for loaded corpora)."""
    world: World | None = None

    def __len__(self) -> int:
        return len(self.passages)

    def by_id(self) -> dict[str, Passage]:
        """Passages keyed by id."""
        return {p.id: p for p in self.passages}

    def write_jsonl(self, path: str | Path) -> Path:
        """Write the corpus as Search-R1 JSONL (one passage per line)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for p in self.passages:
                f.write(p.to_json() + "\n")
        tmp.replace(path)
        return path


def _sentences(ent: Entity, world: World, rng: random.Random) -> list[tuple[str, tuple[str, ...]]]:
    """The article of ``ent``: (sentence, fact keys it states) in reading order."""
    a, n = ent.attrs, ent.name

    def name_of(key: str) -> str:
        return world.get(a[key]).name

    out: list[tuple[str, tuple[str, ...]]] = []
    if ent.kind == "person":
        short = ent.aliases[0]
        out += [
            (f"{n} ({a['born']}-{a['died']}) was {_a(a['occupation'])}.", ("occupation",)),
            (f"{n} was born in {a['born']} in the city of {name_of('birthplace_id')}.",
             ("born", "birthplace_id")),
            (f"{short} was described by contemporaries as {rng.choice(_ADJ)} and "
             f"{rng.choice(_ADJ)}.", ()),
            (f"{n} worked for the {name_of('employer_id')} for most of a long career.",
             ("employer_id",)),
        ]
        works = [w for w in world.of_kind(ent.cluster, "work") if w.attrs["creator_id"] == ent.eid]
        for w in works:
            out.append((f"{n} created the {w.attrs['work_kind']} {w.name}.", ()))
        out += [
            (f"{short} kept a diary that is still read by students of the period.", ()),
            (f"{n} died in {a['died']}.", ("died",)),
        ]
    elif ent.kind == "country":
        others = [c.name for c in world.of_kind(ent.cluster, "city") if c.eid != a["capital_id"]]
        out += [
            (f"{n} is a country whose capital is {name_of('capital_id')}.", ("capital_id",)),
            (f"{n} was founded in {a['founded']}.", ("founded",)),
            (f"The currency of {n} is the {a['currency']}.", ("currency",)),
            (f"The official language of {n} is {a['language']}.", ("language",)),
            (f"Other cities of {n} include {' and '.join(others)}.", ()),
        ]
    elif ent.kind == "city":
        out += [
            (f"{n} is a city in {name_of('country_id')}.", ("country_id",)),
            (f"{n} was founded in {a['founded']}.", ("founded",)),
            (f"The {a['river']} flows through {n}.", ("river",)),
            (f"{n} has a population of about {a['population']:,}.", ("population",)),
            ("The markets of {} have long traded in {} and {}.".format(n, *rng.sample(_GOODS, 2)),
             ()),
        ]
    elif ent.kind == "organisation":
        out += [
            (f"The {n} is {_a(a['org_kind'])} founded in {a['founded']} by "
             f"{name_of('founder_id')}.", ("founded", "founder_id")),
            (f"The {n} is headquartered in {name_of('hq_id')}.", ("hq_id",)),
            (f"The {n} grew quickly in its first decades and opened several branches.", ()),
            (f"Records of the {n} are kept in its own archive.", ()),
        ]
    elif ent.kind == "work":
        out += [
            (f"{n} is {_a(a['work_kind'])} by {name_of('creator_id')}.", ("creator_id",)),
            (f"{n} was completed in {a['year']}.", ("year",)),
            (f"Critics praised {n} for its {rng.choice(_ADJ)} tone.", ()),
        ]
    elif ent.kind == "event":
        out += [
            (f"The {n} took place in {name_of('location_id')} in {a['year']}.",
             ("location_id", "year")),
            (f"The {n} was organised by the {name_of('organiser_id')}.", ("organiser_id",)),
            (f"Accounts of the {n} differ on how many people attended.", ()),
        ]
    return out


def render(world: World, seed: int = 0) -> Corpus:
    """Turn ``world`` into passages, recording the passage of every fact."""
    rng = random.Random(seed + 1)
    passages: list[Passage] = []
    where: dict[tuple[str, str], str] = {}
    for cluster in world.clusters:
        for eid in cluster:
            ent = world.get(eid)
            sentences = _sentences(ent, world, rng)
            for start in range(0, len(sentences), SENTENCES_PER_PASSAGE):
                chunk = sentences[start : start + SENTENCES_PER_PASSAGE]
                pid = str(len(passages))
                passages.append(Passage(pid, ent.name, " ".join(s for s, _ in chunk)))
                for _, keys in chunk:
                    for key in keys:
                        where[(eid, key)] = pid
    return Corpus(passages, where, world)


def generate_corpus(seed: int = 0, n_clusters: int = DEFAULT_CLUSTERS) -> Corpus:
    """The generated encyclopedia (about 45 passages per cluster: 230 clusters give 10,000+)."""
    return render(build_world(seed, n_clusters), seed)


def iter_jsonl(path: str | Path) -> Iterator[dict[str, object]]:
    """Records of a JSONL file, skipping blank lines; a bad line raises ``ValueError``."""
    with Path(path).open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{lineno}: not JSON: {e}") from e
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object")
            yield record


def load_corpus_jsonl(path: str | Path, limit: int | None = None) -> Corpus:
    """Load a Search-R1 corpus (``wiki-18.jsonl`` or the like): ``{"id", "contents"}`` lines."""
    passages: list[Passage] = []
    for i, record in enumerate(iter_jsonl(path)):
        if limit is not None and i >= limit:
            break
        if "contents" not in record:
            raise ValueError(f"{path}: record {i} has no 'contents' field")
        record.setdefault("id", str(i))
        passages.append(Passage.from_record(record))
    return Corpus(passages, {})


def passages_from_texts(texts: Iterable[str]) -> list[Passage]:
    """Passages with ids ``0..n-1`` from raw ``"Title"\\ntext`` strings (for small tests)."""
    return [Passage.from_record({"id": str(i), "contents": t}) for i, t in enumerate(texts)]
