"""Forking an episode: copies in the parent's exact state, isolated from it and each other."""

from __future__ import annotations

import asyncio

import pytest

import agentgym
from agentgym import ForkError, fork
from agentgym.fork import fork_mode
from agentgym.testing.fork_check import check_fork


def _call(tool, **arguments):
    import json

    return f'<tool_call>{{"name": "{tool}", "arguments": {json.dumps(arguments)}}}</tool_call>'


def test_shop_forks_by_state_mid_episode_and_branches_are_isolated():
    env = agentgym.make("shop/price-v0")
    env.reset(seed=3)
    item = env.unwrapped.task.data["item"]
    env.step(_call("lookup", item=item))
    assert fork_mode(env) == "state"
    a, b = env.fork(2)
    assert a.unwrapped._last_text == b.unwrapped._last_text == env.unwrapped._last_text
    assert a.unwrapped.task.task_id == env.unwrapped.task.task_id and a.turns == env.turns == 1
    assert a.unwrapped.looked_up == env.unwrapped.looked_up == {item}
    a.unwrapped.looked_up.add("planted")  # a write in one branch...
    assert "planted" not in env.unwrapped.looked_up | b.unwrapped.looked_up  # ...is theirs only
    expert = env.unwrapped.expert_actions(env.unwrapped.task)
    for call in expert[1:]:  # branch a finishes the task the expert's way
        a.step(call)
    assert a.unwrapped.reward == 1.0 and env.unwrapped.reward == 0.0 and not env.unwrapped.done
    _, reward, terminated, _, _ = b.step(_call("answer", value="-1"))  # branch b answers wrong
    assert terminated and reward == 0.0 and a.unwrapped.reward == 1.0
    assert env.turns == 1 and b.turns == 2  # the parent's turn count never moved


def test_sql_forks_by_state_and_the_fork_contract_holds():
    env = agentgym.make("sql")
    assert check_fork(env, _call("execute_sql", query="SELECT 1")) == "checked"


def test_an_env_without_fork_fields_forks_by_replay_and_refuses_when_not_exact():
    env = agentgym.make("textgames/guess-number-v0")
    assert fork_mode(env) == "replay"
    env.reset(seed=0)
    env.step(_call("guess", number=1))
    (child,) = fork(env)
    assert child.unwrapped._last_text == env.unwrapped._last_text
    assert child.unwrapped.task.task_id == env.unwrapped.task.task_id
    env.unwrapped._last_text = "an observation no replay reaches"  # as if not deterministic
    with pytest.raises(ForkError, match="not deterministic"):
        fork(env)




def test_a_directly_built_env_and_forkable_no_are_refused(monkeypatch):
    from dataclasses import replace

    env = agentgym.make("shop/price-v0")
    env.reset(seed=0)
    monkeypatch.setattr(env.unwrapped, "agentgym_spec",
                        replace(env.unwrapped.agentgym_spec, forkable="no"))
    with pytest.raises(ForkError, match="forkable: no"):
        env.fork()
    bare = type(agentgym.make("textgames/guess-number-v0").unwrapped)()  # replay, no make()
    bare.reset(seed=0)
    with pytest.raises(ForkError, match="not made by agentgym.make"):
        fork(bare)
    with pytest.raises(ForkError, match="reset it first"):
        agentgym.make("shop/price-v0").fork()


def test_afork_is_the_async_twin():
    env = agentgym.make("arith/add-v0")
    env.reset(seed=1)
    children = asyncio.run(env.afork(3))
    assert len(children) == 3
    assert {c.unwrapped.task.task_id for c in children} == {env.unwrapped.task.task_id}


def test_code_forks_by_state_with_a_sandbox_of_its_own():
    env = agentgym.make("code", sandbox="bubblewrap")
    try:
        env.reset(seed=1)
        env.step(_call("run_python", code="print(6 * 7)"))
        assert env.unwrapped.sandbox is not None  # the parent's sandbox is open
        assert fork_mode(env) == "state"
        (child,) = fork(env)
        assert child.unwrapped.fork_origin == "state"
        assert child.unwrapped._sandbox is None  # its own, opened on first use
        assert check_fork(agentgym.make("code", sandbox="bubblewrap"),
                          _call("run_python", code="print(1)")) == "checked"
        _, reward, terminated, _, _ = child.step(_call("submit", code="def f():\n    return 0\n"))
        assert terminated and reward == 0.0 and not env.unwrapped.done
        child.close()
        obs, *_ = env.step(_call("run_python", code="print(2 + 2)"))  # parent's sandbox lives
        assert "4" in obs["text"]
    finally:
        env.close()


def test_terminal_forks_its_filesystem():
    env = agentgym.make("terminal/test-v0")
    try:
        env.reset(seed=0)
        env.step(_call("write_file", path="note.txt", content="parent"))
        a, b = env.fork(2)
        assert a.unwrapped.fork_origin == "state"
        a.step(_call("write_file", path="note.txt", content="branch a"))
        a.step(_call("bash", command="touch only-in-a"))
        for other in (b, env):  # the write and the new file are branch a's only
            obs, *_ = other.step(_call("bash", command="cat note.txt; ls only-in-a"))
            assert "parent" in obs["text"] and "No such file" in obs["text"]
        obs, *_ = a.step(_call("bash", command="cat note.txt; ls only-in-a"))
        assert "branch a" in obs["text"] and "No such file" not in obs["text"]
        assert check_fork(agentgym.make("terminal/test-v0"),
                          _call("bash", command="echo hi > x")) == "checked"
    finally:
        env.close()
