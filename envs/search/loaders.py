"""Loaders for users' own QA data: NQ-style and HotpotQA-style JSONL (or JSON lists).

Accepted record shapes (one per line, or a JSON list):

- Search-R1 / FlashRAG NQ: ``{"id", "question", "golden_answers": [...]}``
- NQ-open: ``{"question", "answer": [...]}``
- HotpotQA: ``{"_id", "question", "answer", "type", "level", "supporting_facts": [[title, i]]}``

Answers may be a string or a list; ids default to the line number. HotpotQA's supporting facts
are kept as titles (``supporting``) since their passage ids depend on the corpus. ``split``
comes from the record when present, else from the argument.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .corpus import iter_jsonl
from .questions import QAItem


def _answers(record: dict[str, Any]) -> list[str]:
    for key in ("golden_answers", "answers", "answer"):
        if key in record:
            value = record[key]
            return [str(v) for v in value] if isinstance(value, list) else [str(value)]
    return []


def qa_from_record(record: dict[str, Any], index: int, split: str = "test") -> QAItem:
    """One :class:`QAItem` from an NQ- or HotpotQA-style record (``ValueError`` if unusable)."""
    question = record.get("question")
    answers = _answers(record)
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"record {index} has no 'question'")
    if not answers:
        raise ValueError(f"record {index} has no answer ('golden_answers', 'answers', 'answer')")
    qid = str(record.get("id", record.get("_id", f"qa{index:06d}")))
    facts = record.get("supporting_facts") or []
    titles = list(dict.fromkeys(str(f[0]) for f in facts if isinstance(f, list | tuple) and f))
    kind = {"bridge": "bridge", "comparison": "comparison"}.get(str(record.get("type")), "single")
    return QAItem(qid, question.strip(), answers, split=str(record.get("split", split)),
                  hops=2 if kind != "single" else int(record.get("hops", 1)), kind=kind,
                  supporting=[str(s) for s in record.get("supporting", titles)],
                  template=str(record.get("template", record.get("level", ""))))


def load_qa_jsonl(path: str | Path, split: str = "test") -> list[QAItem]:
    """Questions from an NQ/HotpotQA-style ``.jsonl`` (or a ``.json`` list)."""
    path = Path(path)
    if path.suffix == ".json":
        records = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(records, list):
            raise ValueError(f"{path}: expected a JSON list of questions")
    else:
        records = list(iter_jsonl(path))
    return [qa_from_record(r, i, split) for i, r in enumerate(records)]
