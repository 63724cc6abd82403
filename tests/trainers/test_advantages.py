"""Advantage estimators and reward shaping on numbers worked out on paper.

Group "a" rewards [1, 0]: mean 0.5, sample std sqrt((0.25 + 0.25) / 1) = 0.707107,
  GRPO A = +-0.5 / 0.707107 = +-0.707107; Dr. GRPO A = +-0.5.
Group "b" rewards [1, 0, 0]: mean 1/3, sample std sqrt((4/9 + 1/9 + 1/9) / 2) = 0.577350,
  GRPO A = (2/3) / 0.57735 = 1.154701 and (-1/3) / 0.57735 = -0.577350;
  Dr. GRPO A = 0.666667, -0.333333.
Group "c" rewards [1, 1]: zero variance, A = 0 (and it is dropped by dynamic sampling).
"""

from __future__ import annotations

import pytest
import torch

from agentgym.trainers.advantages import (
    agentwise_advantages,
    dr_grpo_advantages,
    grpo_advantages,
    informative_groups,
    overlong_penalty,
)

REWARDS = torch.tensor([1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0])
GROUPS = ["a", "a", "b", "b", "b", "c", "c"]


def test_grpo_group_normalised():
    adv = grpo_advantages(REWARDS, GROUPS, eps=0.0)
    assert adv.tolist() == pytest.approx(
        [0.707107, -0.707107, 1.154701, -0.577350, -0.577350, 0.0, 0.0], abs=1e-6
    )


def test_grpo_eps_and_singleton_group():
    adv = grpo_advantages(torch.tensor([1.0, 0.0, 5.0]), ["a", "a", "solo"], eps=1e-6)
    assert adv[0].item() == pytest.approx(0.5 / (0.707107 + 1e-6), abs=1e-6)
    assert adv[2].item() == 0.0


def test_dr_grpo_no_std():
    adv = dr_grpo_advantages(REWARDS, GROUPS)
    assert adv.tolist() == pytest.approx(
        [0.5, -0.5, 0.666667, -0.333333, -0.333333, 0.0, 0.0], abs=1e-6
    )


def test_group_ids_length_mismatch():
    with pytest.raises(ValueError, match="group ids"):
        grpo_advantages(REWARDS, GROUPS[:-1])


def test_dynamic_sampling_filter():
    assert informative_groups(REWARDS.tolist(), GROUPS) == ["a", "b"]


def test_overlong_penalty():
    # max 10, buffer 4: free up to 6; inside (6 - L) / 4; beyond 10: -1.
    pen = overlong_penalty(torch.tensor([5, 6, 8, 10, 11]), max_length=10, buffer=4)
    assert pen.tolist() == pytest.approx([0.0, 0.0, -0.5, -1.0, -1.0])
    assert overlong_penalty(torch.tensor([50]), 10, 0).tolist() == [0.0]
    with pytest.raises(ValueError):
        overlong_penalty(torch.tensor([1]), 4, 8)


def test_agentwise_normalises_each_agent_with_its_own_statistics():
    """Task "t": the planner's rewards [10, 0] are on ten times the executor's scale [1, 0].
    Global: mean 2.75, sample std sqrt((7.25^2 + 2.75^2 + 1.75^2 + 2.75^2) / 3) = 4.856267, so
    the executor's success gets A = -1.75 / 4.856267 = -0.360359 (its win looks like a loss).
    Agent-wise (Dr. MAS): each agent's pair is [x, 0] -> +-0.707107 for both agents."""
    rewards = torch.tensor([10.0, 0.0, 1.0, 0.0])
    groups, agents = ["t"] * 4, ["planner", "planner", "executor", "executor"]
    glob = grpo_advantages(rewards, groups, eps=0.0)
    assert glob.tolist() == pytest.approx([1.492916, -0.566279, -0.360359, -0.566279], abs=1e-6)
    adv = agentwise_advantages(rewards, groups, agents, eps=0.0)
    assert adv.tolist() == pytest.approx([0.707107, -0.707107, 0.707107, -0.707107], abs=1e-6)
    centred = agentwise_advantages(rewards, groups, agents, centre_only=True)
    assert centred.tolist() == pytest.approx([5.0, -5.0, 0.5, -0.5])
    with pytest.raises(ValueError, match="agent ids"):
        agentwise_advantages(rewards, groups, agents[:3])
