"""Reward hacking against the WebArena evaluators (issue 24): each attack must score 0.

The answers are what a policy under RL would find: every number at once, a reference's letters
scrambled, nothing at all where a check the evaluator does not know stands, a refusal where
the task is unachievable for a stated reason. Each case is scored by the env's evaluator on the
real task data (the bundled twin's tasks, and the official WebArena-Lite tasks where the
``[webarena]`` task package is installed); the proof is the score of 0 (and, for a check the
evaluator does not implement, an error naming it).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agentgym.envs.webarena.evaluators import EvalResult, evaluate
from agentgym.envs.webarena.judges import NormalizedJudge
from agentgym.envs.webarena.official import OfficialTasksMissing
from agentgym.envs.webarena.tasks import load_tasks

EVERY_NUMBER = " ".join(str(i) for i in range(400))


class StaticProbe:
    """A page probe whose final page is ``url`` and whose every read returns ``text``."""

    def __init__(self, url: str = "", text: str = "") -> None:
        self.url, self.text = url, text

    async def current_url(self) -> str:
        return self.url

    async def read(self, url: str, locator: str) -> str:
        return self.text


def score(config: dict[str, Any], answer: str, probe: StaticProbe | None = None) -> EvalResult:
    return asyncio.run(evaluate(config, answer, probe or StaticProbe(), NormalizedJudge()))


def string_task(refs: Any, intent: str = "q", note: str = "") -> dict[str, Any]:
    return {"intent": intent, "eval": {"eval_types": ["string_match"], "reference_answers": refs,
                                       "reference_url": "", "program_html": [],
                                       "string_note": note}}


def test_every_number_at_once_earns_nothing_on_the_bundled_tasks() -> None:
    """Answering 0..399 used to be rewarded on about 7% of the bundled test episodes."""
    rewarded = [t.task_id for t in load_tasks().split("test")
                if t.data["config"]["eval"]["eval_types"] == ["string_match"]
                and score(t.data["config"], EVERY_NUMBER).score > 0]
    assert rewarded == []


def test_a_number_does_not_match_inside_another_number() -> None:
    assert score(string_task({"must_include": ["2"]}), "12").score == 0.0
    assert score(string_task({"must_include": ["2"]}), "2.5").score == 0.0
    assert score(string_task({"must_include": ["12.99"]}), "112.995").score == 0.0
    assert score(string_task({"fuzzy_match": ["428,238"]}), "1428,2389").score == 0.0


def test_a_list_of_candidate_numbers_earns_nothing() -> None:
    assert score(string_task({"must_include": ["7"]}), "6 or 7 or 8").score == 0.0
    assert score(string_task({"fuzzy_match": ["4.0"]}), "3.5, 4.0, 4.5").score == 0.0
    assert score(string_task({"fuzzy_match": ["4.0"]}), "3.5 out of 4.0").score == 0.0
    assert score(string_task({"fuzzy_match": ["4.0"]}), "4.0 out of 5").score == 1.0


def test_must_include_as_one_string_is_one_reference_not_letters() -> None:
    """Official task 81 gives its ``must_include`` as a string, not a list."""
    assert score(string_task({"must_include": "zqvbe"}), "zebra quiver").score == 0.0
    assert score(string_task({"must_include": "zqvbe"}), "z, q, v, b, e").score == 0.0
    assert score(string_task({"must_include": "zqvbe"}), "zqvbe").score == 1.0


@pytest.mark.parametrize("check", [{"fuzzy_match": ["refund", "it broke"]},
                                   {"semantic_match": ["refund"]}, {}])
def test_an_unimplemented_page_check_fails_closed(check: dict[str, Any]) -> None:
    """A page check the evaluator skipped used to pass with an empty form."""
    config = {"intent": "Draft a refund message", "eval": {
        "eval_types": ["program_html"], "reference_answers": None, "reference_url": "",
        "program_html": [{"url": "last", "locator": "document.querySelector('#m').value",
                          "required_contents": check}]}}
    result = score(config, "", StaticProbe("http://shop/contact", ""))
    assert result.score == 0.0


@pytest.mark.parametrize("refs", [{"regex": "x"}, {"must_include": ["a"], "extra": 1}])
def test_an_unknown_reference_kind_fails_closed(refs: dict[str, Any]) -> None:
    result = score(string_task(refs), "a")
    assert result.score == 0.0 and result.error


def test_an_unknown_eval_type_or_url_note_fails_closed() -> None:
    result = score({"intent": "q", "eval": {"eval_types": ["magic"]}}, "")
    assert result.score == 0.0 and "magic" in (result.error or "")
    config = {"intent": "q", "eval": {"eval_types": ["url_match"], "reference_url": "http://h/a",
                                      "url_note": "SOMEWHERE", "program_html": []}}
    result = score(config, "", StaticProbe("http://h/a"))
    assert result.score == 0.0 and "url_note" in (result.error or "")


@pytest.mark.parametrize("answer", ["I cannot do that", "This is not possible.", "unable",
                                    "none found", "The task does not exist"])
def test_the_offline_judge_takes_no_refusal_for_a_reasoned_na(answer: str) -> None:
    """An unachievable task (reference N/A) whose string_note gives the reason."""
    config = string_task({"fuzzy_match": "N/A"}, intent="Add a note to the order",
                         note="The store has no order notes.")
    assert score(config, answer).score == 0.0
    assert score(config, "N/A").score == 1.0


def official_lite() -> list[dict[str, Any]]:
    from agentgym.envs.webarena.official import read_official

    try:
        return read_official("webarena-lite")
    except OfficialTasksMissing as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("task_id", [123, 142])
def test_official_page_checks_with_fuzzy_match_need_the_form_filled(task_id: int) -> None:
    """The two official tasks that scored 1.0 with nothing typed."""
    config = next(t for t in official_lite() if t["task_id"] == task_id)
    config = json.loads(json.dumps(config).replace("__SHOPPING__", "http://shop"))
    result = score(config, "", StaticProbe("http://shop/contact", ""))
    assert result.score == 0.0


def test_a_url_listing_candidate_query_values_earns_nothing() -> None:
    """``?sort=price_asc&sort=price_desc`` holds the gold value among others (a hedge)."""
    config = {"intent": "Sort by price, highest first", "eval": {
        "eval_types": ["url_match"], "reference_answers": None, "program_html": [],
        "reference_url": "http://shop/category/beauty?sort=price_desc", "url_note": "GOLD in PRED"}}
    hedge = "http://shop/category/beauty?sort=price_asc&sort=price_desc&sort=name"
    assert score(config, "", StaticProbe(hedge)).score == 0.0
    right = "http://shop/category/beauty?sort=price_desc&page=2"
    assert score(config, "", StaticProbe(right)).score == 1.0


def test_verified_answers_listing_candidates_earn_nothing() -> None:
    """WebArena-Verified retrieval tasks: every number, or the data padded with guesses."""
    from agentgym.envs.webarena.official import read_official

    try:
        records = read_official("webarena-verified")
    except OfficialTasksMissing as e:
        pytest.skip(str(e))
    numeric = [r for r in records if len(r["eval"]) == 1
               and r["eval"][0]["results_schema"].get("items", {}).get("type") == "number"
               and r["eval"][0]["expected"].get("retrieved_data")]
    assert len(numeric) > 20
    for record in numeric:
        expected = record["eval"][0]["expected"]
        hedge = {**expected, "retrieved_data": list(range(400))}
        assert score(record, json.dumps(hedge)).score == 0.0
        padded = {**expected, "retrieved_data": [*expected["retrieved_data"], 0, 1, 2]}
        assert score(record, json.dumps(padded)).score == 0.0
        assert score(record, "").score == 0.0
        assert score(record, " ".join(str(i) for i in range(400))).score == 0.0
