"""Hostile answers to the twin's instantiations of the official templates score 0.

Every ``string_match`` task of ``lite-test`` and ``lite-train`` is scored by the env's own
``string_match`` evaluator (the offline judge): the expert's answer must score 1, and answers a
policy can give without doing the task must score 0: nothing, "N/A", the task's own words echoed
back, and, where the gold is a number, the gold hedged with its neighbours.
"""

from __future__ import annotations

import asyncio
import re
from importlib import metadata
from typing import Any

import pytest

try:
    metadata.distribution("browsergym-webarenalite")
except metadata.PackageNotFoundError:
    pytest.skip("browsergym-webarenalite (the [webarena] extra) is not installed",
                allow_module_level=True)

from agentgym.envs.webarena.evaluators import string_score  # noqa: E402
from agentgym.envs.webarena.judges import NormalizedJudge  # noqa: E402
from agentgym.envs.webarena.twin_official import lite_records  # noqa: E402


def _string_tasks() -> list[dict[str, Any]]:
    return [r for split in lite_records().values() for r in split
            if "string_match" in r["eval"]["eval_types"]]


def _score(rec: dict[str, Any], answer: str) -> float:
    return asyncio.run(string_score(rec["eval"], answer, rec["intent"], NormalizedJudge(), []))


def test_the_expert_answer_scores_one() -> None:
    bad = [r["task_id"] for r in _string_tasks() if _score(r, r["expert"][-1]["answer"]) != 1.0]
    assert bad == []


@pytest.mark.parametrize("kind", ["empty", "n/a", "echo"])
def test_answers_without_doing_the_task_score_zero(kind: str) -> None:
    won = []
    for r in _string_tasks():
        answer = {"empty": "", "n/a": "N/A", "echo": r["intent"]}[kind]
        if _score(r, answer) != 0.0:
            won.append(f"{r['task_id']} ({r['intent_template_id']}): {r['intent'][:60]}")
    assert won == []


def test_a_number_hedged_with_its_neighbours_scores_zero() -> None:
    won = []
    for r in _string_tasks():
        gold = r["expert"][-1]["answer"]
        if re.fullmatch(r"\$?[\d,]+(\.\d+)?", gold):
            value = float(gold.strip("$").replace(",", ""))
            answer = f"{value - 1:g} or {gold} or {value + 1:g}"
            if _score(r, answer) != 0.0:
                won.append(f"{r['task_id']}: {answer}")
    assert won == []
