"""WebArena-Verified's agent-response check on its own tasks, and where it fails closed."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from agentgym.envs.webarena.evaluators import EvalResult, evaluate
from agentgym.envs.webarena.official import OfficialTasksMissing, read_official
from agentgym.envs.webarena.official_verified import (
    data_matches,
    parse_response,
    response_score,
    string_eq,
)


class NoPage:
    async def current_url(self) -> str:
        return ""

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        return None


def verified() -> list[dict[str, Any]]:
    try:
        return read_official("webarena-verified")
    except OfficialTasksMissing as e:
        pytest.skip(str(e))


def first(value: Any) -> Any:
    """The first alternative of every value (the reference lists alternatives as lists)."""
    if isinstance(value, list):
        return first(value[0])
    if isinstance(value, dict):
        return {k: first(v) for k, v in value.items()}
    return value


def score(record: dict[str, Any], response: dict[str, Any]) -> EvalResult:
    return asyncio.run(evaluate(record, json.dumps(response), NoPage()))


def test_reference_responses_score_one_and_wrong_ones_zero(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    scored = closed = 0
    for record in verified():
        expected = record["eval"][0]["expected"]
        if '"^' in json.dumps(expected):  # patterns: an answer must be written for them
            continue
        data = expected.get("retrieved_data")
        right = {**expected, "retrieved_data": [first(v) for v in data] if data else data}
        result = score(record, right)
        if result.error:
            closed += 1
            assert result.score == 0.0
            continue
        scored += 1
        assert result.score == 1.0, (record["task_id"], result)
        assert score(record, {**right, "status": "UNKNOWN_ERROR"}).score == 0.0
        assert score(record, {**right, "task_type": "navigate" if expected["task_type"]
                              != "navigate" else "mutate"}).score == 0.0
        if expected["task_type"] == "retrieve" and data:
            assert score(record, {**right, "retrieved_data": ["nothing of the kind"]}).score == 0
            with_extra = {**right, "retrieved_data": [*right["retrieved_data"], "and more"]}
            assert score(record, with_extra).score == 0.0  # a list of candidates
    assert scored >= 225 and scored + closed >= 790


def test_network_checks_and_unparsed_formats_fail_closed() -> None:
    records = {r["task_id"]: r for r in verified()}
    network = next(r for r in records.values()
                   if any(c["evaluator"] == "NetworkEventEvaluator" for c in r["eval"]))
    result = score(network, network["eval"][0]["expected"])
    assert result.score == 0.0 and "NetworkEventEvaluator" in (result.error or "")
    duration = next(r for r in records.values()
                    if '"duration"' in json.dumps(r["eval"][0]["results_schema"]))
    result = score(duration, first(duration["eval"][0]["expected"]))
    assert result.score == 0.0 and "duration" in (result.error or "")


def test_values_compare_as_webarena_verified_types_them() -> None:
    assert string_eq("Quest Lumaflex\u2122 Band", "  quest  LUMAFLEX band. ")
    assert string_eq(["a", "b"], "B") and not string_eq(["a", "b"], "c")
    assert string_eq(r"^#?\s*0*170$", "#000170") and not string_eq(r"^#?\s*0*170$", "1700")
    assert string_eq("Caf\u00e9", "cafe")
    money = {"items": {"type": "number", "format": "currency"}}
    assert data_matches(money, [1234.5], ["$1,234.50"], ordered=False)
    assert data_matches({"items": {"type": "boolean"}}, [True], ["yes"], ordered=False)
    assert not data_matches({"items": {"type": "boolean"}}, [True], ["no"], ordered=False)
    assert data_matches({}, ["a", "b"], ["b", "a"], ordered=False)
    assert not data_matches({}, ["a", "b"], ["b", "a"], ordered=True)
    assert not data_matches({}, ["a"], ["a", "a"], ordered=False)


def test_the_response_is_json_in_a_fence_or_bare() -> None:
    check = {"expected": {"task_type": "retrieve", "status": "SUCCESS", "retrieved_data": ["x"]},
             "results_schema": {"type": "array", "items": {"type": "string"}}}
    fenced = '```json\n{"performed_operation": "RETRIEVE", "status": "SUCCESS", ' \
             '"retrieved_data": ["X"]}\n```'
    assert parse_response(fenced) is not None and response_score(check, fenced) == 1.0
    assert response_score(check, '{"task_type": "RETRIEVE", "status": "SUCCESS", '
                                 '"retrieved_data": "x"}') == 1.0
    for bad in ("x", "", "[1]", '{"status": "SUCCESS"}', "null"):
        assert response_score(check, bad) == 0.0
