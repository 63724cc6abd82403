"""Tree rollouts: forked episodes share their prefix exactly, branch on their own, cost less."""

from __future__ import annotations

from typing import Any

import pytest

from agentgym import ConfigError
from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, TreeShape, tree_env_steps


def _done_if_odd(messages: list[dict[str, Any]], episode: Any) -> str:
    """Says done (the reward) only in odd samples: siblings of one branch must differ."""
    return f"s{episode.sample_idx} done" if episode.sample_idx % 2 else f"s{episode.sample_idx}"


def test_a_tree_group_shares_its_prefix_and_costs_fewer_env_steps(counter_env: str) -> None:
    policy = FakePolicy(_done_if_odd)
    engine = Engine(counter_env, policy, num_envs=2)
    [group] = engine.generate_tree_groups(["t4"], 4, width=2, branch_turns=(2,), seed=3)
    engine.close()
    assert [t.info["tree"]["path"] for t in group] == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert [t.sample_idx for t in group] == [0, 1, 2, 3]
    assert {t.group_id for t in group} == {"r0:t4"}
    for t in group:
        t.check()
        assert t.turns == 5 and t.terminated and not t.aborted
        assert t.info["tree"]["branch_turns"] == [2]
    # siblings hold the same exact prefix (tokens, mask, log-probs, versions) up to the branch
    for a, b in ((group[0], group[1]), (group[2], group[3])):
        at = a.info["tree"]["branch_at"][0]
        assert at == b.info["tree"]["branch_at"][0] and at < len(a.token_ids)
        for name in ("token_ids", "loss_mask", "logprobs", "versions"):
            assert getattr(a, name)[:at] == getattr(b, name)[:at]
        assert a.token_ids[at:] != b.token_ids[at:]  # the continuations are each their own
        assert a.messages[:5] == b.messages[:5] and a.messages[5:] != b.messages[5:]
    # the children's rewards follow their own continuation, not the parent's
    assert [t.reward for t in group] == [0.0, 1.0, 0.0, 1.0]
    # the first two turns were generated and stepped once per root, not once per leaf
    assert len(policy.calls) == 2 * 2 + 4 * 3
    assert tree_env_steps(group) == 2 * 2 + 4 * 3 < sum(t.turns for t in group)


def test_an_episode_that_ends_before_the_branch_is_one_leaf(counter_env: str) -> None:
    engine = Engine(counter_env, FakePolicy(_done_if_odd), num_envs=2)
    [group] = engine.generate_tree_groups(["t1"], 4, width=2, branch_turns=(3,))  # 2 turns
    engine.close()
    assert [t.info["tree"]["path"] for t in group] == [[0], [1]]
    assert tree_env_steps(group) == sum(t.turns for t in group) == 4


def test_two_branch_points(counter_env: str) -> None:
    engine = Engine(counter_env, FakePolicy(_done_if_odd), num_envs=1)
    [group] = engine.generate_tree_groups(["t4"], 8, width=2, branch_turns=(1, 3))
    engine.close()
    assert len(group) == 8 and [t.sample_idx for t in group] == list(range(8))
    assert all(len(t.info["tree"]["branch_at"]) == 2 for t in group)
    assert tree_env_steps(group) == 1 * 2 + 2 * 4 + 2 * 8


def test_shapes_that_cannot_be_grown_are_refused() -> None:
    with pytest.raises(ConfigError, match="multiple"):
        TreeShape.for_group(6, 4, (1,))
    with pytest.raises(ConfigError, match="increasing"):
        TreeShape(branch_turns=(2, 1))
    assert TreeShape.for_group(8, 2, (1, 2)).roots == 2
