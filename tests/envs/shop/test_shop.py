"""shop/price-v0: splits, the expert, the lookup rule, compact calls and hostile input."""

from __future__ import annotations

import pytest

import agentgym
from agentgym.envs.shop.env import ITEMS, calculate, compact_call, load_tasks, plural
from agentgym.errors import ToolError


def test_splits_are_disjoint_and_prices_vary():
    tasks = load_tasks()
    assert tasks.splits == {"train": 88, "test": 40}
    tasks.check()
    pairs = {s: {(t.data["item"], t.data["quantity"]) for t in tasks.split(s)}
             for s in ("train", "test")}
    assert not pairs["train"] & pairs["test"]
    pen_prices = {t.data["prices"]["pen"] for t in tasks.split("train")}
    assert len(pen_prices) > 3  # a price must be looked up, not memorised


def test_expert_succeeds_with_three_calls():
    env = agentgym.make("shop", split="test")
    env.reset(options={"index": 3})
    task = env.unwrapped.task
    actions = env.unwrapped.expert_actions(task)
    assert len(actions) == 3
    for i, action in enumerate(actions):
        obs, reward, terminated, truncated, info = env.step(action)
        assert terminated is (i == 2)
    assert (reward, info["success"], obs["text"]) == (1.0, True, "correct")
    env.close()


def test_a_right_answer_without_lookup_fails():
    env = agentgym.make("shop", split="train")
    env.reset(options={"index": 0})
    answer = env.unwrapped.task.data["answer"]
    _, reward, terminated, _, info = env.step(f"answer({answer})")
    assert (reward, terminated, info["success"], info["looked_up"]) == (0.0, True, False, False)


def test_standard_tool_call_formats_work_too():
    env = agentgym.make("shop", split="train")
    env.reset(options={"index": 5})
    item = env.unwrapped.task.data["item"]
    obs, *_ = env.step(f'<tool_call>{{"name": "lookup", "arguments": {{"item": "{item}"}}}}'
                       "</tool_call>")
    assert obs["text"] == str(env.unwrapped.task.data["prices"][item])
    obs, *_ = env.step(f"lookup({plural(item)})")  # plurals are understood
    assert obs["text"] == str(env.unwrapped.task.data["prices"][item])


@pytest.mark.parametrize("action", [
    "calc(__import__('os').system('echo hi'))", "calc(9**99999)", "calc(1/0)", "lookup(dragon)",
    "fly(away)", "just words", "", "calc(", "<tool_call>{broken</tool_call>", "answer()",
])
def test_bad_input_gives_error_observations(action):
    env = agentgym.make("shop", split="train")
    env.reset(options={"index": 1})
    obs, reward, terminated, truncated, _ = env.step(action)
    assert isinstance(obs["text"], str) and reward == 0.0 and not truncated
    if not action.startswith("answer"):
        assert not terminated and obs["text"].startswith("Error")
    env.close()


def test_calculator_and_compact_parser():
    assert calculate("4*3") == 12 and calculate("7 / 2") == 3.5 and calculate("-2+5") == 3
    with pytest.raises(ToolError):
        calculate("a+1")
    call = compact_call("  calc( 4*3 )\nsome trailing text")
    assert call is not None and (call.name, call.arguments) == ("calc", {"expression": "4*3"})
    assert compact_call("no call here") is None
    assert plural("box") == "boxes" and all(plural(i).endswith("s") for i in ITEMS)
