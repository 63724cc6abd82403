"""Attack: a tool call whose JSON nests deeply. The core parser answers every such turn with a
:class:`ToolCallParseError` (a message for the model), never ``RecursionError``; every game env,
the seat envs included, answers it with an observation; ``check_env``'s corpus holds such turns."""

from __future__ import annotations

import json

import pytest

import agentgym
from agentgym import ToolCall, ToolCallParseError, parse_tool_calls, toolcalls
from agentgym.testing import check_env, malformed_actions

MAX_ARGUMENT_DEPTH = getattr(toolcalls, "MAX_ARGUMENT_DEPTH", 64)

DEEP = 100_000
"""Far past Python's recursion limit."""


def _hostile_turns() -> list:
    deep_array = "[" * DEEP + "]" * DEEP
    deep_object = '{"a":' * DEEP + "1" + "}" * DEEP
    shallow_enough = "[" * 900 + "]" * 900  # under the recursion limit, over the depth cap
    turns = []
    for body in (deep_array, deep_object, "[" * DEEP, shallow_enough):
        turns += [
            f'<tool_call>{{"name": "move", "arguments": {{"move": {body}}}}}</tool_call>',
            f'<tool_call>{{"name": "move", "arguments": {json.dumps(body)}}}</tool_call>',
            f"<tool_call>{body}</tool_call>",
            f'{{"name": "move", "arguments": {{"move": {body}}}}}',
            f"Action: move\nAction Input: {body}",
            f"Action: move[{body}]",
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "x", "type": "function", "function": {"name": "move", "arguments": body}}]},
            {"role": "assistant", "content": f"<tool_call>{body}</tool_call>"},
        ]
    nested: object = 1
    for _ in range(5_000):  # already-parsed arguments (a client's dict), nested past any cap
        nested = [nested]
    turns += [
        {"tool_calls": [{"function": {"name": "move", "arguments": {"move": nested}}}]},
        [ToolCall("move", {"move": nested})],
    ]
    return turns


@pytest.mark.parametrize("index", range(len(_hostile_turns())))
def test_the_parser_raises_only_its_own_error_on_deep_nesting(index: int) -> None:
    with pytest.raises(ToolCallParseError):
        parse_tool_calls(_hostile_turns()[index])


def test_arguments_at_the_depth_cap_still_parse() -> None:
    value = "[" * (MAX_ARGUMENT_DEPTH - 2) + "]" * (MAX_ARGUMENT_DEPTH - 2)  # the call's 2 objects
    calls = parse_tool_calls(f'<tool_call>{{"name": "f", "arguments": {{"x": {value}}}}}'
                             "</tool_call>")
    assert calls[0].name == "f"


GAME_IDS = [i for i in agentgym.list_envs() if i.startswith("games/")]


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_every_game_env_answers_deep_nesting_with_an_observation(env_id) -> None:
    env = agentgym.make(env_id)
    base = env.unwrapped
    try:
        for i, turn in enumerate(_hostile_turns()):
            if isinstance(base, agentgym.MultiAgentEnv):
                base.reset(seed=i)
                agent = base.agent_selection
                base.step(turn)
                obs = base.observe(agent)
                assert obs["text"].startswith("Error")
            else:
                env.reset(seed=i)
                obs, reward, terminated, truncated, info = env.step(turn)
                assert isinstance(obs["text"], str) and reward <= 0
    finally:
        env.close()


def test_the_malformed_corpus_holds_deeply_nested_calls() -> None:
    corpus = list(malformed_actions(40, seed=0, tool_names=["move"]))
    deep = [a for a in corpus if len(repr(a)) > 100_000 and repr(a).count("[") + repr(a).count("{")
            > 10_000]
    assert len(deep) >= 3, "check_env's corpus has no deeply nested tool calls"


@pytest.mark.parametrize("env_id", ["games/tictactoe-vs-scripted-v0", "games/kuhn-poker-v0"])
def test_check_env_passes_the_game_envs_with_the_new_corpus(env_id) -> None:
    env = agentgym.make(env_id)
    try:
        check_env(env, n_malformed=40)
    finally:
        env.close()
