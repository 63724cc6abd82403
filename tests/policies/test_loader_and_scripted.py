"""Selecting policies by string; scripted, replay and random policies on a real env family."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym import PolicyError
from agentgym.plugins import get_registry
from agentgym.policies import FakePolicy, Policy, load_policy, parse_policy_spec
from agentgym.rollout import Engine, EpisodeRequest, TrajectoryStore

GAME = "textgames/guess-number-v0"


def test_parse_policy_spec() -> None:
    assert parse_policy_spec("scripted") == ("scripted", None, {})
    assert parse_policy_spec("hf:smollm2-135m?device=cpu&max_batch_size=4") == (
        "hf", "smollm2-135m", {"device": "cpu", "max_batch_size": 4})
    assert parse_policy_spec("openai:http://h:1/v1?x=1.5") == ("openai", "http://h:1/v1",
                                                               {"x": 1.5})
    with pytest.raises(PolicyError):
        parse_policy_spec(":x")


def test_builtins_registered_through_the_hook() -> None:
    names = get_registry("policies").names()
    for name in ("openai", "hf", "vllm", "scripted", "replay", "random", "fake"):
        assert name in names
    assert get_registry("policies").get("hf").plugin == "builtin-policies"
    fake = load_policy("fake:hi?median=0.01&sigma=0.5")
    assert isinstance(fake, FakePolicy) and fake.responses == ("hi",)
    assert load_policy(fake) is fake
    with pytest.raises(PolicyError, match="no policy named 'nope'"):
        load_policy("nope")


def _tasks(n: int) -> list[EpisodeRequest]:
    ids = [f"guess-{i:03d}" for i in (5, 10, 15, 50, 95)][:n]
    return [EpisodeRequest(task_id=t) for t in ids]


def test_scripted_expert_solves_and_replay_repeats_it(tmp_path: Path) -> None:
    engine = Engine(GAME, "scripted", num_envs=3, env_kwargs={"split": "test"})
    trajs = engine.run(_tasks(5))
    assert all(t.success and t.terminated for t in trajs)
    assert all(1 <= t.turns <= 7 for t in trajs)  # binary search over 1..100: at most 7 guesses
    with TrajectoryStore(tmp_path) as store:
        for t in trajs:
            store.append(t)
    replay = load_policy(f"replay:{tmp_path}")
    again = Engine(GAME, replay, num_envs=2, env_kwargs={"split": "test"}).run(_tasks(5))
    assert [t.messages for t in again] == [t.messages for t in trajs]


def test_scripted_needs_an_expert(tmp_path: Path) -> None:
    import agentgym
    from agentgym import AgentEnv, make_observation

    class NoExpert(AgentEnv):
        def _reset(self, options):  # type: ignore[no-untyped-def]
            return make_observation("hi"), {}

    agentgym.register("testpol/noexpert-v0", NoExpert)
    [t] = Engine("testpol/noexpert-v0", "scripted", num_envs=1).run([EpisodeRequest()])
    assert t.aborted and "offers no expert" in t.reason


def test_random_policy_calls_tools_and_rarely_wins() -> None:
    policy = load_policy("random?seed=1")
    assert isinstance(policy, Policy)
    trajs = Engine(GAME, policy, num_envs=3, env_kwargs={"split": "test"}).run(_tasks(5))
    first_turns = [t.messages[2]["content"] for t in trajs]
    assert sum("<tool_call>" in m for m in first_turns) >= 3
    assert sum(t.success for t in trajs) <= 2
