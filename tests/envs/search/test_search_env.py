"""search/qa-v0 and its variants: tools, Search-R1 tags, MemSearcher, rewards, the expert."""

from __future__ import annotations

import json

import pytest

import agentgym
from agentgym.envs.search.expert import expert_actions
from agentgym.policies.scripted import action_to_text


def _call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def _play_expert(env, task) -> tuple[float, dict]:
    env.reset(options={"task_id": task.task_id})
    reward, info = 0.0, {}
    for action in env.unwrapped.expert_actions(task):
        _, reward, terminated, truncated, info = env.step(action_to_text(action))
        assert "error" not in info, info
        if terminated or truncated:
            break
    return reward, info


def test_tools_have_openai_and_mcp_schemas():
    env = agentgym.make("search/qa-v0")
    tools = env.unwrapped.tools
    assert tools.names() == ["search", "open", "answer"]
    search = tools.get("search").to_openai()["function"]
    assert search["parameters"]["required"] == ["query"]
    assert "k" in search["parameters"]["properties"]
    assert tools.to_mcp()[2]["inputSchema"]["required"] == ["text"]
    env.close()


@pytest.mark.parametrize("env_id", ["search/qa-v0", "search/qa-r1-v0", "search/memsearcher-v0"])
def test_expert_solves_a_spread_of_test_questions(env_id):
    env = agentgym.make(env_id, split="test")
    tasks = list(env.unwrapped.task_set)
    sample = tasks[:: max(1, len(tasks) // 25)]
    assert {t.data["hops"] for t in sample} == {1, 2, 3}
    for task in sample:
        reward, info = _play_expert(env, task)
        assert reward == 1.0 and info["success"], task
    env.close()


@pytest.mark.slow
def test_expert_solves_every_test_question():
    env = agentgym.make("search/qa-v0", split="test")
    for task in env.unwrapped.task_set:
        reward, _ = _play_expert(env, task)
        assert reward == 1.0, task
    env.close()


def test_tools_protocol_search_open_answer():
    env = agentgym.make("search/qa-v0", split="test")
    task = next(t for t in env.unwrapped.task_set if t.data["hops"] == 1)
    obs, _ = env.reset(options={"task_id": task.task_id})
    assert obs["text"] == f"Question: {task.prompt}"
    obs, reward, terminated, _, info = env.step(_call("search", query=task.data["queries"][0]))
    assert not terminated and obs["text"].startswith("[")
    obs, *_ = env.step(_call("open", doc_id=task.data["supporting"][0]))
    assert obs["text"].startswith('"')
    obs, *_, info = env.step(_call("open", doc_id="no-such-id"))
    assert "no passage" in info["error"]
    obs, *_, info = env.step(_call("search", query="x", k=50))
    assert "k must be" in info["error"]
    obs, reward, terminated, _, info = env.step(_call("answer", text="certainly wrong"))
    assert terminated and reward == 0.0 and not info["success"] and info["em"] == 0.0
    env.close()


def test_search_r1_tags_render_information_and_answer():
    env = agentgym.make("search/qa-r1-v0", split="test")
    obs, _ = env.reset(seed=3)
    task = env.unwrapped.task
    obs, *_ = env.step(f"<think>look</think><search>{task.data['queries'][0]}</search>")
    assert obs["text"].startswith("<information>Doc 1(Title: ")
    obs, *_, info = env.step("I think it is something")
    assert "no action found" in obs["text"] and info["error"]
    obs, reward, terminated, _, info = env.step(f"<answer> {task.data['answers'][0]} </answer>")
    assert terminated and reward == 1.0 and info["format_errors"] == 1
    env.close()


def test_format_penalty_and_f1_reward():
    env = agentgym.make("search/qa-r1-v0", split="test", reward="f1", format_penalty=0.25)
    env.reset(options={"index": 0})
    gold = env.unwrapped.task.data["answers"][0]
    env.step("no tags at all")
    _, reward, terminated, _, info = env.step(f"<answer>{gold} and more</answer>")
    assert terminated and info["em"] == 0.0 and 0 < info["f1"] < 1
    assert reward == pytest.approx(info["f1"] - 0.25)
    env.close()


def test_memsearcher_observation_holds_question_memory_and_newest_results():
    env = agentgym.make("search/memsearcher-v0", split="test")
    obs, _ = env.reset(seed=1)
    task = env.unwrapped.task
    assert obs["text"] == f"<question>{task.prompt}</question>\n<memory></memory>"
    first = env.step("<memory>nothing yet</memory>" + _call("search", query="alpha", top_n=2))
    assert first[0]["text"].startswith(f"<question>{task.prompt}</question>\n<memory>nothing yet")
    q = task.data["queries"][0]
    obs, _, _, _, info = env.step("<memory>alpha was useless</memory>"
                                  + _call("search", query=q, top_n=2))
    text = obs["text"]
    assert "<memory>alpha was useless</memory>" in text and info["context"] == "replace"
    assert text.count("<information>") == 1 and text.count("Doc ") == 2  # the newest only
    _, reward, terminated, _, _ = env.step(f"\\boxed{{{task.data['answers'][0]}}}")
    assert terminated and reward == 1.0
    env.close()


def test_lookup_variant_is_one_turn_with_the_top_passage():
    env = agentgym.make("search/lookup-v0", split="test")
    tasks = list(env.unwrapped.task_set)
    assert tasks and all(t.data["hops"] == 1 for t in tasks)
    obs, _ = env.reset(seed=0)
    task = env.unwrapped.task
    assert obs["text"].startswith("Passage: ") and obs["text"].endswith("Answer:")
    _, reward, terminated, _, info = env.step(f" {task.data['answers'][0]}.")
    assert terminated and reward == 1.0 and "format" in info["error"]
    env.close()


def test_expert_actions_for_every_protocol():
    env = agentgym.make("search/qa-v0", split="test")
    task = next(t for t in env.unwrapped.task_set if t.data["hops"] == 3)
    tools = expert_actions(task, "tools")
    assert [a.name for a in tools] == ["search", "open"] * 3 + ["answer"]
    assert len(expert_actions(task, "search-r1")) == 4
    assert expert_actions(task, "memsearcher")[-1].endswith(f"\\boxed{{{task.data['answers'][0]}}}")
    env.close()


def test_bad_options_are_refused():
    with pytest.raises(ValueError):
        agentgym.make("search/qa-v0", protocol="smoke-signals")
    with pytest.raises(ValueError):
        agentgym.make("search/qa-v0", reward="bleu")
    with pytest.raises(ValueError, match="qa_path"):
        agentgym.make("search/qa-v0", corpus_path="wiki-18.jsonl")
