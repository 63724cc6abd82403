"""Users' own data: NQ- and HotpotQA-style QA files, Search-R1 corpora, and the env over them."""

from __future__ import annotations

import json

import pytest

import agentgym
from agentgym.envs.search.loaders import load_qa_jsonl

CORPUS = [
    {"id": "0", "contents": '"Osterbrook"\nOsterbrook is a city on the Vella River.'},
    {"id": "1", "contents": '"Alaric Vennholt"\nAlaric Vennholt was born in Osterbrook.'},
]


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_nq_and_hotpot_records(tmp_path):
    path = _write(tmp_path / "qa.jsonl", [
        {"id": "nq1", "question": "where was vennholt born?", "golden_answers": ["Osterbrook"]},
        {"question": "which river?", "answer": ["Vella River", "Vella"]},
        {"_id": "hp1", "question": "Who?", "answer": "Alaric Vennholt", "type": "bridge",
         "level": "hard", "supporting_facts": [["Alaric Vennholt", 0], ["Osterbrook", 1],
                                               ["Alaric Vennholt", 2]]},
    ])
    items = load_qa_jsonl(path)
    assert [q.qid for q in items] == ["nq1", "qa000001", "hp1"]
    assert items[0].answers == ["Osterbrook"] and items[1].answers == ["Vella River", "Vella"]
    assert items[2].kind == "bridge" and items[2].hops == 2
    assert items[2].supporting == ["Alaric Vennholt", "Osterbrook"]
    assert all(q.split == "test" for q in items)


def test_bad_qa_records_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no answer"):
        load_qa_jsonl(_write(tmp_path / "a.jsonl", [{"question": "q?"}]))
    with pytest.raises(ValueError, match="no 'question'"):
        load_qa_jsonl(_write(tmp_path / "b.jsonl", [{"answer": "x"}]))


def test_env_over_a_users_corpus_and_questions(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))
    corpus = _write(tmp_path / "corpus.jsonl", CORPUS)
    qa = _write(tmp_path / "qa.jsonl", [
        {"id": "u1", "question": "Where was Alaric Vennholt born?",
         "golden_answers": ["Osterbrook"]}])
    env = agentgym.make("search/qa-v0", split="test", corpus_path=str(corpus), qa_path=str(qa))
    obs, info = env.reset(options={"task_id": "u1"})
    assert "Where was Alaric Vennholt born?" in obs["text"]
    obs, *_ = env.step(
        '<tool_call>{"name": "search", "arguments": {"query": "Vennholt"}}</tool_call>')
    assert obs["text"].startswith("[1] Alaric Vennholt:")
    obs, reward, terminated, _, info = env.step(
        '<tool_call>{"name": "answer", "arguments": {"text": "osterbrook"}}</tool_call>')
    assert terminated and reward == 1.0 and info["success"]
    env.close()
