"""Reward review of arith/add-v0: echoing the question or listing sums earns nothing."""

from __future__ import annotations

import pytest

import agentgym
from agentgym.envs.arith.env import load_tasks, read_answer


def _mean_reward(reply) -> float:
    env = agentgym.make("arith/add-v0", split="train")
    tasks = list(load_tasks())
    total = 0.0
    for task in tasks:
        env.unwrapped.task_set = load_tasks()  # every pair, both splits
        env.reset(options={"task_id": task.task_id})
        _, reward, terminated, _, _ = env.step(reply(task))
        assert terminated
        total += reward
    env.close()
    return total / len(tasks)


def test_echoing_the_question_earns_nothing():
    """Before: the last integer of "Compute 0 + b." is b = 0 + b: 10% of the tasks paid."""
    assert _mean_reward(lambda task: task.prompt) == 0.0


@pytest.mark.parametrize("order", [range(19), range(18, -1, -1)], ids=["up", "down"])
def test_listing_every_sum_earns_nothing(order):
    assert _mean_reward(lambda task: ", ".join(map(str, order))) == 0.0


def test_honest_replies_still_score():
    assert _mean_reward(lambda t: str(t.data["answer"])) == 1.0
    assert _mean_reward(lambda t: f"{t.data['a']} + {t.data['b']} = {t.data['answer']}") == 1.0
    assert _mean_reward(lambda t: f"The sum of {t.data['a']} and {t.data['b']} is "
                                  f"{t.data['answer']}.") == 1.0


@pytest.mark.parametrize(("text", "operands", "number"), [
    ("7", (7, 0), 7), ("7 + 0 = 7", (7, 0), 7), ("3 + 4 = 7. The answer is 7.", (3, 4), 7),
    ("Compute 0 + 5. Reply with only the number.", (0, 5), None), ("5 or 6", (2, 3), None),
    ("no idea", (1, 1), None),
])
def test_read_answer(text, operands, number):
    assert read_answer(text, operands) == number
