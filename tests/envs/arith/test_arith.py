"""arith/add-v0: splits, answer reading, one-turn episodes."""

from __future__ import annotations

import pytest

import agentgym
from agentgym.envs.arith.env import load_tasks, read_number


def test_splits_are_disjoint_pairs():
    tasks = load_tasks()
    assert tasks.splits == {"train": 70, "test": 30}
    tasks.check()
    pairs = {s: {(t.data["a"], t.data["b"]) for t in tasks.split(s)} for s in ("train", "test")}
    assert not pairs["train"] & pairs["test"]
    assert len(pairs["train"] | pairs["test"]) == 100


@pytest.mark.parametrize(
    ("text", "number"),
    [("7", 7), ("The answer is 12.", 12), ("3 + 4 = 7", 7), ("no idea", None), ("-2", -2)],
)
def test_read_number_takes_the_last_integer(text, number):
    assert read_number(text) == number


def test_one_turn_episode_plain_text_and_tool_call():
    env = agentgym.make("arith", split="test")
    obs, info = env.reset(options={"index": 0})
    task = env.unwrapped.task
    a, b = task.data["a"], task.data["b"]
    assert obs["text"] == f"Compute {a} + {b}. Reply with only the number."
    _, reward, terminated, truncated, info = env.step(str(task.data["answer"]))
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
    env.reset(options={"task_id": task.task_id})
    call = f'<tool_call>{{"name": "answer", "arguments": {{"value": "{task.data["answer"] + 1}"}}}}'
    _, reward, terminated, _, info = env.step(call + "</tool_call>")
    assert (reward, terminated, info["success"]) == (0.0, True, False)
    env.close()
