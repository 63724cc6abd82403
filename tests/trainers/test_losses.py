"""Loss functions on a 2-trajectory, 3-step example worked out on paper.

Trajectory 1: advantage +1, mask [1, 1, 1], ratios pi/pi_old = [1.5, 1.1, 0.7].
Trajectory 2: advantage -1, mask [1, 1, 0], ratios pi/pi_old = [0.5, 1.2, 2.0].
``old_logp = 0`` and ``logp = log(ratio)``, so ``r`` is exactly the ratio.

PPO-clip with DAPO's clip-higher (eps_low 0.2, eps_high 0.28), clip range [0.8, 1.28]:
  traj 1 (A=+1): min(r, clip r) = [min(1.5, 1.28), 1.1, min(0.7, 0.8)] = [1.28, 1.1, 0.7]
                 loss = [-1.28, -1.1, -0.7]; step 0 is high-clipped.
  traj 2 (A=-1): min(-r, -clip r) = [min(-0.5, -0.8), -1.2, min(-2.0, -1.28)]
                 = [-0.8, -1.2, -2.0], loss = [0.8, 1.2, 2.0]; step 0 is low-clipped.
Reductions over the masked tokens (traj 2 step 2 is masked out):
  GRPO seq-mean-token-mean: ((-1.28 - 1.1 - 0.7) / 3 + (0.8 + 1.2) / 2) / 2
                            = (-1.026667 + 1.0) / 2 = -0.0133333
  DAPO token-mean:          (-3.08 + 2.0) / 5 = -0.216
  Dr. GRPO, max_length 4:   (-3.08 + 2.0) / (2 * 4) = -0.135
GSPO (same clip range for the sake of the example):
  s1 = (1.5 * 1.1 * 0.7)^(1/3) = 1.155^(1/3) = 1.049206, inside [0.8, 1.28]: loss1 = -1.049206
  s2 = (0.5 * 1.2)^(1/2) = 0.774597 < 0.8 with A < 0: clipped, loss2 = -min(-0.7746, -0.8) = 0.8
  mean over sequences = (-1.049206 + 0.8) / 2 = -0.124603
"""

from __future__ import annotations

import math

import pytest
import torch

from agentgym.trainers.losses import (
    aggregation_weights,
    entropy_from_logits,
    gspo_loss,
    k3_kl,
    ppo_clip_loss,
    sequence_ratio,
    tis_weights,
    token_logprobs,
)

RATIOS = torch.tensor([[1.5, 1.1, 0.7], [0.5, 1.2, 2.0]])
LOGP = torch.log(RATIOS)
OLD = torch.zeros(2, 3)
ADV = torch.tensor([1.0, -1.0])
MASK = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])


def test_ppo_clip_per_token_and_clip_flags():
    loss, clipped = ppo_clip_loss(LOGP, OLD, ADV, MASK, eps_low=0.2, eps_high=0.28)
    expected = torch.tensor([[-1.28, -1.1, -0.7], [0.8, 1.2, 2.0]])
    assert torch.allclose(loss, expected, atol=1e-6)
    assert clipped.tolist() == [[True, False, False], [True, False, False]]


@pytest.mark.parametrize(
    ("mode", "max_length", "expected"),
    [
        ("seq_mean_token_mean", None, -0.0133333),
        ("token_mean", None, -0.216),
        ("seq_mean_token_sum_norm", 4, -0.135),
    ],
)
def test_reductions(mode, max_length, expected):
    loss, _ = ppo_clip_loss(LOGP, OLD, ADV, MASK, eps_low=0.2, eps_high=0.28)
    weights = aggregation_weights(MASK, mode, max_length)
    assert (loss * weights).sum().item() == pytest.approx(expected, abs=1e-6)


def test_reductions_split_into_micro_batches_equal_full_batch():
    loss, _ = ppo_clip_loss(LOGP, OLD, ADV, MASK, eps_low=0.2, eps_high=0.28)
    for mode in ("seq_mean_token_mean", "token_mean", "seq_mean_token_sum_norm"):
        w = aggregation_weights(MASK, mode, 4)
        parts = (loss[:1] * w[:1]).sum() + (loss[1:] * w[1:]).sum()
        assert parts.item() == pytest.approx((loss * w).sum().item(), abs=1e-7)


def test_unknown_reduction_or_missing_length_raises():
    with pytest.raises(ValueError, match="unknown loss aggregation"):
        aggregation_weights(MASK, "nope")
    with pytest.raises(ValueError, match="max_length"):
        aggregation_weights(MASK, "seq_mean_token_sum_norm")


def test_gspo_sequence_ratio_and_loss():
    s = sequence_ratio(LOGP, OLD, MASK)
    assert s.tolist() == pytest.approx([1.049206, 0.774597], abs=1e-6)
    loss, clipped = gspo_loss(LOGP, OLD, ADV, MASK, eps_low=0.2, eps_high=0.28)
    assert loss[:, 0].tolist() == pytest.approx([-1.049206, 0.8], abs=1e-6)
    assert clipped[:, 0].tolist() == [False, True]
    w = aggregation_weights(MASK, "seq_mean_token_mean")
    assert (loss * w).sum().item() == pytest.approx(-0.124603, abs=1e-6)


def test_gspo_gradient_flows_through_every_token():
    logp = LOGP.clone().requires_grad_(True)
    loss, _ = gspo_loss(logp, OLD, torch.tensor([1.0, 1.0]), MASK, eps_low=0.5, eps_high=0.5)
    (loss * aggregation_weights(MASK, "seq_mean_token_mean")).sum().backward()
    # d(-s1/2)/d logp_t = -s1 / (2 * 3) on each of trajectory 1's tokens.
    assert logp.grad[0].tolist() == pytest.approx([-1.049206 / 6] * 3, abs=1e-6)
    assert logp.grad[1, 2].item() == 0.0


def test_k3_kl_hand_value():
    # pi = 0.5, pi_ref = 0.25: d = log 0.5; exp(d) - d - 1 = 0.5 + 0.693147 - 1 = 0.193147.
    kl = k3_kl(torch.tensor([math.log(0.5)]), torch.tensor([math.log(0.25)]))
    assert kl.item() == pytest.approx(0.193147, abs=1e-6)
    assert k3_kl(torch.tensor([-1.0]), torch.tensor([-1.0])).item() == 0.0


def test_truncated_importance_weights():
    old = torch.log(torch.tensor([0.6, 0.3]))
    behav = torch.log(torch.tensor([0.3, 0.6]))
    assert tis_weights(old, behav, cap=1.0).tolist() == pytest.approx([1.0, 0.5])
    assert tis_weights(old, behav, cap=2.0).tolist() == pytest.approx([2.0, 0.5])


def test_token_logprobs_and_entropy():
    # Uniform logits over 4 tokens: every log-prob is log(1/4), entropy log 4.
    logits = torch.zeros(1, 3, 4)
    ids = torch.tensor([[0, 2, 3]])
    assert token_logprobs(logits, ids)[0].tolist() == pytest.approx([math.log(0.25)] * 2)
    assert entropy_from_logits(logits)[0].tolist() == pytest.approx([math.log(4)] * 3)
