"""Reward review of the search family: EM/F1 pay for the answer, not for hedging or echoes."""

from __future__ import annotations

import json

import pytest

import agentgym
from agentgym.envs.search.scoring import exact_match, f1_score, score_answer
from agentgym.testing import check_rewards


def _answer(text: str) -> str:
    return f"<tool_call>{json.dumps({'name': 'answer', 'arguments': {'text': text}})}</tool_call>"


@pytest.mark.parametrize("metric", ["em", "f1"])
def test_an_empty_answer_never_matches_a_gold_that_normalises_to_nothing(metric):
    assert score_answer("", ["The"], metric) == 0.0
    assert score_answer("  ", ["a", "!!"], metric) == 0.0
    assert score_answer("the", ["An"], metric) == 0.0


def test_a_list_of_candidates_earns_no_f1():
    golds = ["Paris"]
    candidates = ", ".join(["London", "Berlin", "Paris", "Rome", "Madrid", "Vienna"])
    assert f1_score(candidates, golds) == 0.0
    assert score_answer("\n".join(["1901", "1950", "1988", "2001"]), ["1950"], "f1") == 0.0


def test_the_question_echoed_earns_no_f1():
    question = "Which company was founded first, Acme Rockets or Borealis Mining?"
    assert f1_score(question, ["Acme Rockets"]) == 0.0


def test_short_answers_keep_their_partial_credit():
    assert f1_score("Acme", ["Acme Rockets"]) == pytest.approx(2 / 3)
    assert f1_score("born in 1950", ["1950"]) == pytest.approx(0.5)
    assert exact_match("the Paris!", ["Paris"]) == 1.0


def test_echoing_the_question_earns_nothing_on_the_env_with_f1():
    env = agentgym.make("search/qa-v0", reward="f1")
    total = 0.0
    for seed in range(12):
        obs, _ = env.reset(seed=seed)
        _, reward, terminated, _, _ = env.step(_answer(env.unwrapped.task.prompt))
        assert terminated
        total += reward
    env.close()
    assert total == 0.0


@pytest.mark.parametrize("env_id", ["search/qa-v0", "search/lookup-v0"])
def test_check_rewards_passes_with_f1_and_em(env_id):
    for reward in ("em", "f1"):
        result = check_rewards(env_id, reward=reward)
        assert result.passed, str(result)
