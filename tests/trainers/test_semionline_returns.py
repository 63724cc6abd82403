"""Semi-online returns, advantages, filter and patch decisions on hand-computed numbers.

The worked example (gamma = 0.5), one task, copies A and B over 3 expert steps:

    A: r = [1.0, 0.55, 1.0]  matched = [T, F (patched), T]
       R_2 = 1.0; R_1 = 0.55 (no propagation: step 1 did not match); R_0 = 1.0 + 0.5*0.55 = 1.275
    B: r = [1.0, 1.0, 0.1]   matched = [T, T, F]
       R_2 = 0.1; R_1 = 1.0 + 0.5*0.1 = 1.05; R_0 = 1.0 + 0.5*1.05 = 1.525

With two values per group, (x - mean) / sample std = +-1/sqrt(2) = +-0.7071:
step level  A = [-0.7071, -0.7071, +0.7071], B = [+0.7071, +0.7071, -0.7071];
episode     sums A = 2.55 > B = 2.1, so A_E = +0.7071, B_E = -0.7071;
combined    A = [0, 0, 1.4142], B = [0, 0, -1.4142].
"""

from __future__ import annotations

import math

import pytest
import torch

from agentgym.rollout.semionline import should_patch, split_thought, step_reward
from agentgym.trainers.semionline_returns import (
    discounted_returns,
    episode_advantages,
    keep_task,
    semi_online_advantages,
    semi_online_step_advantages,
    step_advantages,
)

A_R, A_M = [1.0, 0.55, 1.0], [True, False, True]
B_R, B_M = [1.0, 1.0, 0.1], [True, True, False]
H = 1 / math.sqrt(2)


def rounded(xs, n=4):
    return [round(x, n) for x in xs]


def test_discounted_returns_do_not_cross_unmatched_steps():
    assert rounded(discounted_returns(A_R, A_M, 0.5)) == [1.275, 0.55, 1.0]
    assert rounded(discounted_returns(B_R, B_M, 0.5)) == [1.525, 1.05, 0.1]
    assert discounted_returns([0.3], [True], 0.5) == [0.3]  # the last step has nothing after it
    with pytest.raises(ValueError):
        discounted_returns([1.0], [True, False], 0.5)


def test_step_and_episode_advantages_two_copies():
    returns = [[1.275, 0.55, 1.0], [1.525, 1.05, 0.1]]
    a_s = step_advantages(returns, ["t", "t"])
    assert rounded(a_s[0]) == rounded([-H, -H, H]) and rounded(a_s[1]) == rounded([H, H, -H])
    assert rounded(episode_advantages([2.55, 2.1], ["t", "t"])) == rounded([H, -H])


def test_combined_advantages_match_the_worked_example():
    combined, returns = semi_online_advantages([A_R, B_R], [A_M, B_M], ["t", "t"], gamma=0.5)
    assert rounded(returns[0]) == [1.275, 0.55, 1.0]
    assert rounded(combined[0]) == [0.0, 0.0, 1.4142]
    assert rounded(combined[1]) == [0.0, 0.0, -1.4142]
    weighted, _ = semi_online_advantages([A_R, B_R], [A_M, B_M], ["t", "t"], gamma=0.5,
                                         w_episode=2.0, w_step=0.5)
    assert rounded(weighted[0]) == rounded([2 * H - 0.5 * H, 2 * H - 0.5 * H, 2.5 * H])


def test_shorter_copy_gives_singleton_groups_zero_and_three_way_normalisation():
    # copy C was patched at step 0 and failed at step 1 (threshold 1): R = [0.55, 0.1]
    returns = [[1.275, 0.55, 1.0], [1.525, 1.05, 0.1], [0.55, 0.1]]
    a_s = step_advantages(returns, ["t", "t", "t"])
    # step 0: values 1.275, 1.525, 0.55; mean 1.116667; sample std sqrt(0.512917 / 2) = 0.506418
    assert rounded([a_s[0][0], a_s[1][0], a_s[2][0]], 3) == [0.313, 0.806, -1.119]
    # step 1: 0.55, 1.05, 0.1; mean 0.566667; std sqrt((0.000278+0.233611+0.217778)/2) = 0.475219
    assert rounded([a_s[0][1], a_s[1][1], a_s[2][1]], 3) == [-0.035, 1.017, -0.982]
    # step 2 has two copies only: +-0.7071
    assert rounded([a_s[0][2], a_s[1][2]]) == rounded([H, -H])
    assert step_advantages([[0.9]], ["solo"]) == [[0.0]]  # singleton group


def test_groups_are_per_task():
    a_s = step_advantages([[1.0], [0.0], [5.0]], ["x", "x", "y"])
    assert rounded([a[0] for a in a_s]) == rounded([H, -H, 0.0])


def test_registered_estimator_rebuilds_copies_from_keys_in_any_order():
    keys = [("t", 1, 2, False), ("t", 0, 0, True), ("t", 1, 0, True), ("t", 0, 1, False),
            ("t", 0, 2, True), ("t", 1, 1, True)]
    rewards = torch.tensor([0.1, 1.0, 1.0, 0.55, 1.0, 1.0])
    adv = semi_online_step_advantages(rewards, keys, gamma=0.5)
    assert rounded(adv.tolist()) == [-1.4142, 0.0, 0.0, 0.0, 1.4142, 0.0]
    with pytest.raises(ValueError):
        semi_online_step_advantages(torch.tensor([1.0]), ["plain-group"])


def test_step0_std_filter():
    assert not keep_task([1.275, 1.525])  # std 0.1768 <= 0.3
    assert keep_task([1.275, 1.525, 0.55])  # std 0.5064
    assert not keep_task([1.0])  # one copy: no spread
    assert keep_task([1.275, 1.525], min_std=0.1)


@pytest.mark.parametrize(
    ("matched", "errors", "threshold", "patch"),
    [(False, 0, 2, True), (False, 1, 2, True), (False, 2, 2, False), (False, 0, 0, False),
     (False, 99, -1, True), (True, 0, 2, False), (True, 0, -1, False)],
)
def test_patch_decisions(matched, errors, threshold, patch):
    assert should_patch(matched, errors, threshold) is patch


def test_step_reward_and_thought_split():
    assert step_reward(True, 1.0) == pytest.approx(1.0)
    assert step_reward(False, 1.0) == pytest.approx(0.9)
    assert step_reward(True, 0.5) == pytest.approx(0.55)
    assert step_reward(False, 0.1) == pytest.approx(0.09)
    assert step_reward(False, 0.0) == 0.0
    assert split_thought("<think>price first</think>\nlookup(pen)") == (
        "price first", "lookup(pen)")
    assert split_thought("Thought: need it\nAction: lookup[{}]") == (
        "need it", "Action: lookup[{}]")
    assert split_thought("lookup(pen)") == ("", "lookup(pen)")
