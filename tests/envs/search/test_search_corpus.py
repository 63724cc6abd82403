"""The generated encyclopedia: format, size, determinism, facts where the questions say."""

from __future__ import annotations

import json
import re
from collections import Counter

from agentgym.envs.search.corpus import Passage, generate_corpus, load_corpus_jsonl
from agentgym.envs.search.scoring import normalize_answer


def test_bundled_corpus_has_10k_passages_in_search_r1_format(bundled, tmp_path):
    corpus = bundled.corpus
    assert len(corpus) >= 10_000
    ids = [p.id for p in corpus.passages]
    assert len(set(ids)) == len(ids)
    line = json.loads(corpus.passages[0].to_json())
    assert set(line) == {"id", "contents"}
    assert re.fullmatch(r'"[^"\n]+"\n.+', line["contents"], re.DOTALL)
    written = (bundled.folder / "corpus.jsonl").read_text().splitlines()
    assert len(written) == len(corpus)
    assert json.loads(written[17]) == json.loads(corpus.passages[17].to_json())


def test_same_seed_same_corpus_other_seed_other_corpus():
    a, b, c = generate_corpus(3, 4), generate_corpus(3, 4), generate_corpus(4, 4)
    assert [p.contents for p in a.passages] == [p.contents for p in b.passages]
    assert [p.contents for p in a.passages] != [p.contents for p in c.passages]


def test_every_fact_is_stated_in_its_passage(small_corpus):
    world = small_corpus.world
    by_id = small_corpus.by_id()
    for (eid, key), pid in small_corpus.fact_passage.items():
        ent = world.get(eid)
        value = ent.attrs[key]
        shown = world.get(value).name if key.endswith("_id") else str(value)
        text = by_id[pid].text
        assert ent.name in text, (eid, key)
        assert shown in text.replace(",", "") or shown in text, (eid, key, text)


def test_entity_names_are_unique(small_corpus):
    names = Counter(e.name for e in small_corpus.world.entities.values())
    assert names.most_common(1)[0][1] == 1


def test_passage_parses_title_and_plain_contents():
    p = Passage.from_record({"id": "7", "contents": '"Title here"\nBody text.'})
    assert (p.id, p.title, p.text) == ("7", "Title here", "Body text.")
    q = Passage.from_record({"id": 3, "contents": "no title line"})
    assert (q.id, q.title, q.text) == ("3", "", "no title line")


def test_load_corpus_jsonl_round_trip_and_errors(small_corpus, tmp_path):
    path = small_corpus.write_jsonl(tmp_path / "c.jsonl")
    loaded = load_corpus_jsonl(path)
    assert [p.contents for p in loaded.passages] == [p.contents for p in small_corpus.passages]
    assert len(load_corpus_jsonl(path, limit=5)) == 5
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "contents": "x"}\nnot json\n')
    try:
        load_corpus_jsonl(bad)
    except ValueError as e:
        assert "bad.jsonl:2" in str(e)
    else:
        raise AssertionError("a bad line must raise")


def test_questions_cover_hops_and_kinds_and_answers_are_in_the_last_passage(
        small_corpus, small_questions):
    kinds = Counter((q.hops, q.kind) for q in small_questions)
    assert {(1, "single"), (2, "bridge"), (2, "comparison"), (3, "bridge")} <= set(kinds)
    by_id = small_corpus.by_id()
    for q in small_questions:
        assert len(q.supporting) == q.hops and len(q.queries) == q.hops
        evidence = " ".join(by_id[s].text for s in q.supporting)
        assert normalize_answer(q.answers[0]) in normalize_answer(evidence), q


def test_split_by_cluster_leaks_no_entity(bundled):
    questions = bundled.questions
    world = bundled.corpus.world
    train = [q for q in questions if q.split == "train"]
    test = [q for q in questions if q.split == "test"]
    assert len(test) >= 500 and len(train) > 3 * len(test)
    assert {q.cluster for q in train}.isdisjoint({q.cluster for q in test})
    # no passage used by a test question supports a train question
    assert {s for q in train for s in q.supporting}.isdisjoint(
        {s for q in test for s in q.supporting})
    # no test entity is named in, or answers, a train question
    test_names = {e.name for e in world.entities.values()
                  if e.cluster in {q.cluster for q in test}}
    for q in train:
        assert not any(a in test_names for a in q.answers)
        assert not any(name in q.question for name in test_names if len(name) > 6)
