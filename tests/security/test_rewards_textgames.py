"""Reward review of the example text games: enumeration must not beat playing the game."""

from __future__ import annotations

import json

import agentgym
from agentgym.testing import check_rewards


def _guess(n: int) -> str:
    return f"<tool_call>{json.dumps({'name': 'guess', 'arguments': {'number': n}})}</tool_call>"


def test_enumerating_numbers_wins_no_more_than_the_guess_budget_allows():
    """Before the fix, 8 guesses per turn over 12 turns tried 1..96 and won 96% of games."""
    env = agentgym.make("textgames/guess-number-v0", split="train")
    tasks = list(env.unwrapped.task_set)
    total = 0.0
    for task in tasks:
        env.reset(options={"task_id": task.task_id})
        numbers = iter(range(1, 101))
        for _ in range(12):
            _, reward, terminated, truncated, _ = env.step(
                "".join(_guess(next(numbers, 100)) for _ in range(8)))
            total += reward
            if terminated or truncated:
                break
    env.close()
    assert total / len(tasks) <= 0.08  # 7 guesses: 7% of uniform targets


def test_one_guess_per_turn():
    env = agentgym.make("textgames/guess-number-v0")
    env.reset(seed=0)
    target = env.unwrapped.task.data["target"]
    other = 1 if target != 1 else 2
    obs, reward, terminated, *_ = env.step(_guess(other) + _guess(target))
    assert reward == 0.0 and not terminated and "one guess per turn" in obs["text"]
    env.close()


def test_guess_budget_ends_the_game_at_zero():
    env = agentgym.make("textgames/guess-number-v0")
    env.reset(seed=0)
    target = env.unwrapped.task.data["target"]
    wrong = [n for n in range(1, 101) if n != target][:7]
    for n in wrong:
        obs, reward, terminated, *_ = env.step(_guess(n))
    assert terminated and reward == 0.0 and "out of guesses" in obs["text"]
    env.close()


def test_check_rewards_passes_with_the_exemptions_reported():
    for env_id in ("textgames/guess-number-v0", "textgames/wordle-v0"):
        result = check_rewards(env_id)
        assert result.passed, str(result)
        assert "candidates" in result.skipped
