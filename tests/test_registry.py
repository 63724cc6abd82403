"""Registering and making envs: ids, aliases, versions, turn limits, errors."""

import pytest
from sample_envs import Counter

import agentgym
from agentgym import DuplicateRegistration, EnvNotFound, TurnLimit


def setup_module():
    agentgym.register("test/counter-v0", Counter, kwargs={"goal": 3}, aliases=("counter",))
    agentgym.register("test/counter-v1", Counter, kwargs={"goal": 5})


def test_make_by_id_alias_and_unversioned():
    assert make_goal("test/counter-v0") == 3
    assert make_goal("counter") == 3
    assert make_goal("test/counter") == 5  # newest version
    assert make_goal("test/counter-v0", goal=7) == 7  # kwargs override


def make_goal(env_id, **kw):
    env = agentgym.make(env_id, **kw)
    return env.unwrapped.goal


def test_spec_is_plain_data_and_recorded_on_env():
    spec = agentgym.spec("counter")
    assert spec.id == "test/counter-v0" and spec.namespace == "test" and spec.version == 0
    env = agentgym.make("counter", goal=4)
    assert env.unwrapped.agentgym_spec.kwargs == {"goal": 4}


def test_unknown_env_suggests_close_ids():
    with pytest.raises(EnvNotFound, match="did you mean test/counter-v0"):
        agentgym.make("counter-v0")


def test_duplicate_registration_with_other_entry_point():
    with pytest.raises(DuplicateRegistration):
        agentgym.register("test/counter-v0", "other.module:Env")


def test_turn_limit_truncates_without_terminating():
    env = agentgym.make("test/counter-v1", max_turns=2)
    assert isinstance(env, TurnLimit)
    env.reset(seed=0)
    assert env.step("a")[2:4] == (False, False)
    _, _, terminated, truncated, info = env.step("b")
    assert (terminated, truncated) == (False, True)
    assert "turn limit 2" in info["truncated_reason"]
    env.reset()
    assert env.step("c")[3] is False


def test_turn_limit_does_not_truncate_a_terminal_step():
    env = agentgym.make("test/counter-v0", max_turns=3)
    env.reset()
    env.step("a")
    env.step("b")
    assert env.step("c")[2:4] == (True, False)


def test_invalid_id_refused():
    with pytest.raises(agentgym.RegistryError, match="invalid env id"):
        agentgym.register("bad id with spaces", Counter)
