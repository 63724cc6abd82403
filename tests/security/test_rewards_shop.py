"""Reward review of shop/price-v0: a list of totals or an echoed question earns nothing."""

from __future__ import annotations

import pytest

import agentgym
from agentgym.envs.shop.env import load_tasks


def _mean_reward(reply) -> float:
    env = agentgym.make("shop/price-v0", split="train")
    tasks = list(load_tasks())
    total = 0.0
    for task in tasks:
        env.unwrapped.task_set = load_tasks()  # every task, both splits
        env.reset(options={"task_id": task.task_id})
        env.step(f"lookup({task.data['item']})")
        _, reward, terminated, _, _ = env.step(f"answer({reply(task)})")
        assert terminated
        total += reward
    env.close()
    return total / len(tasks)


@pytest.mark.parametrize("order", [range(2, 82), range(81, 1, -1)], ids=["up", "down"])
def test_listing_every_total_earns_nothing(order):
    """Before: the last number of "2 3 ... 81" counted, and 81 is the total of 2.3% of tasks."""
    assert _mean_reward(lambda task: " ".join(map(str, order))) == 0.0


def test_echoing_the_question_earns_nothing():
    assert _mean_reward(lambda task: task.prompt) == 0.0


def test_honest_answers_still_score():
    def price(task):
        return task.data["prices"][task.data["item"]]

    assert _mean_reward(lambda t: t.data["answer"]) == 1.0
    assert _mean_reward(lambda t: f"{price(t)} * {t.data['quantity']} = {t.data['answer']}") == 1.0


def test_the_expert_scores_every_task():
    env = agentgym.make("shop/price-v0", split="test")
    for task in env.unwrapped.task_set:
        env.reset(options={"task_id": task.task_id})
        for action in env.unwrapped.expert_actions(task):
            _, reward, terminated, _, _ = env.step(action)
        assert terminated and reward == 1.0
    env.close()
