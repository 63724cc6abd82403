"""Off-policy corrections on numbers worked out by hand.

One trajectory, advantage +1, 3 generated tokens; ``prox_logp = 0`` and
``behav_logp = log([0.5, 1.0, 0.1])``, so ``pi_prox / pi_behav = [2, 1, 10]``.
  cap mode, C = 5:  weights [2, 1, 5];   mask mode, C = 5: weights [2, 1, 0].
``logp = log([1.5, 1.1, 0.7])`` so ``u = pi/pi_prox = [1.5, 1.1, 0.7]``; with clip [0.8, 1.28]
the PPO term ``-min(u*A, clip(u)*A) = [-1.28, -1.1, -0.7]`` (as in test_losses.py), hence
  decoupled PPO, cap:  [-2.56, -1.1, -3.5];   mask: [-2.56, -1.1, 0.0].
Versions: a row ``[-1, 3, 4, 5]`` at trainer version 5 keeps ``[1, 0, 1, 1]`` with lag 1
(3 < 5 - 1) and ``[1, 0, 0, 1]`` with lag 0.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from agentgym.trainers.batch import collate
from agentgym.trainers.config import load_config
from agentgym.trainers.offpolicy import (
    behaviour_keep,
    behaviour_weights,
    decoupled_ppo_loss,
    mask_batch,
    stale_fraction,
    target_versions,
    version_keep,
)
from agentgym.trainers.update import forward_logprobs, policy_update

PROX = torch.zeros(1, 3)
BEHAV = torch.log(torch.tensor([[0.5, 1.0, 0.1]]))
LOGP = torch.log(torch.tensor([[1.5, 1.1, 0.7]]))
MASK = torch.ones(1, 3)
ADV = torch.tensor([1.0])


def test_behaviour_weights_cap_and_mask():
    assert behaviour_weights(PROX, BEHAV, 5.0, "cap").tolist()[0] == pytest.approx([2, 1, 5])
    assert behaviour_weights(PROX, BEHAV, 5.0, "mask").tolist()[0] == pytest.approx([2, 1, 0])
    assert behaviour_weights(PROX, BEHAV, 0.0).tolist()[0] == pytest.approx([2, 1, 10])
    assert behaviour_keep(PROX, BEHAV, 5.0).tolist() == [[1.0, 1.0, 0.0]]
    with pytest.raises(ValueError, match="cap or mask"):
        behaviour_weights(PROX, BEHAV, 5.0, "clip")


def test_decoupled_ppo_loss_by_hand():
    loss, clipped = decoupled_ppo_loss(LOGP, PROX, BEHAV, ADV, MASK, 0.2, 0.28, cap=5.0)
    assert loss.tolist()[0] == pytest.approx([-2.56, -1.1, -3.5], abs=1e-5)
    assert clipped.tolist() == [[True, False, False]]
    masked, _ = decoupled_ppo_loss(LOGP, PROX, BEHAV, ADV, MASK, 0.2, 0.28, cap=5.0, mode="mask")
    assert masked.tolist()[0] == pytest.approx([-2.56, -1.1, 0.0], abs=1e-5)


def test_decoupled_ppo_gradient_flows_through_u_only():
    logp = LOGP.clone().requires_grad_(True)
    loss, _ = decoupled_ppo_loss(logp, PROX, BEHAV, ADV, MASK, 0.2, 0.28, cap=5.0)
    loss.sum().backward()
    # d/dlogp of -w*u = -w*u where unclipped (tokens 1, 2); 0 where clipped (token 0)
    assert logp.grad.tolist()[0] == pytest.approx([0.0, -1.1, -3.5], abs=1e-5)


def test_version_keep_by_hand():
    versions = torch.tensor([[-1, 3, 4, 5]])
    assert version_keep(versions, 5, 1).tolist() == [[1, 0, 1, 1]]
    assert version_keep(versions, 5, 0).tolist() == [[1, 0, 0, 1]]
    assert version_keep(versions, 5, -1).tolist() == [[1, 1, 1, 1]]


def test_target_versions_are_shifted_like_the_batch():
    trajs = [SimpleNamespace(versions=[-1, -1, 2, 2, -1, 3]), SimpleNamespace(versions=[-1, 0])]
    out = target_versions(trajs, 5)
    assert out.tolist() == [[-1, 2, 2, -1, 3], [0, -1, -1, -1, -1]]


def _trajs():
    """Two trajectories: prompt [1, 2], then generated tokens of versions 0 and 2."""
    return [
        SimpleNamespace(token_ids=[1, 2, 5, 6, 7], loss_mask=[0, 0, 1, 1, 1],
                        logprobs=[0, 0, -1.0, -0.5, -2.0], versions=[-1, -1, 0, 0, 2],
                        prompt_ids=[1, 2]),
        SimpleNamespace(token_ids=[1, 2, 8, 9], loss_mask=[0, 0, 1, 1],
                        logprobs=[0, 0, -0.3, -0.1], versions=[-1, -1, 2, 2], prompt_ids=[1, 2]),
    ]


def test_mask_batch_drops_stale_tokens_and_keeps_other_weights():
    trajs = _trajs()
    batch = collate(trajs, torch.tensor([1.0, -1.0]), pad_id=0, loss_agg="token_mean")
    keep = version_keep(target_versions(trajs, batch.mask.shape[1]), current=2, max_lag=1)
    out = mask_batch(batch, keep)
    # targets: row 0 = tokens 2..7 -> versions [-1, 0, 0, 2]; the version-0 tokens are dropped
    assert out.mask.tolist() == [[0, 0, 0, 1], [0, 1, 1, 0]]
    assert out.weights.tolist()[0] == pytest.approx([0, 0, 0, 0.2])  # token_mean over 5 tokens
    assert out.behav_logp.tolist()[0] == pytest.approx([0, 0, 0, -2.0])
    assert stale_fraction(batch.mask, keep) == pytest.approx(2 / 5)
    with pytest.raises(ValueError, match="shape"):
        mask_batch(batch, keep[:, :2])


def test_trainer_path_equals_decoupled_ppo_loss():
    """PPO-clip against the proximal log-probs x truncated weights (the trainer's update) after
    the behaviour mask gives the gradient of :func:`decoupled_ppo_loss` in mask mode."""
    from agentgym.trainers.tiny import tiny_llama

    torch.manual_seed(0)
    model, _ = tiny_llama()
    trajs = _trajs()
    batch = collate(trajs, torch.tensor([1.0, -1.0]), pad_id=0, loss_agg="seq_mean_token_mean")
    with torch.no_grad():
        prox, _ = forward_logprobs(model, batch, 1.0)
    # behaviour log-probs a bit off the proximal ones; one token far off (ratio e^3 > cap 2)
    behav = (prox - 0.1) * batch.mask
    behav[0, 2] = prox[0, 2] - 3.0
    batch.behav_logp = behav
    cap = 2.0
    cfg = load_config(None, ["tis_cap=2.0", "behav_weight_mode=mask", "decoupled_ppo=true",
                             "max_grad_norm=0", "lr=1.0"])

    logp, _ = forward_logprobs(model, batch, 1.0)
    ref, _ = decoupled_ppo_loss(logp, prox, behav, batch.advantages, batch.mask, 0.2, 0.2,
                                cap=cap, mode="mask")
    (ref * batch.weights).sum().backward()
    want = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    before = {n: p.detach().clone() for n, p in model.named_parameters()}

    trained = mask_batch(batch, behaviour_keep(prox, behav, cap))
    trained.old_logp = prox
    assert trained.mask[0, 2] == 0 and trained.mask.sum() == batch.mask.sum() - 1
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    from agentgym.trainers.losses import ppo_clip_loss

    out = policy_update(model, trained, cfg, ppo_clip_loss, opt)
    assert math.isfinite(out["loss"]) and out["tis_weight_mean"] > 1.0
    for name, grad in want.items():
        delta = before[name] - dict(model.named_parameters())[name].detach()
        assert torch.allclose(delta, grad, atol=1e-6), name


def test_config_validates_offpolicy_options():
    from agentgym import ConfigError

    with pytest.raises(ConfigError, match="tis_cap"):
        load_config(None, ["behav_weight_mode=mask"])
    with pytest.raises(ConfigError, match="cap or mask"):
        load_config(None, ["behav_weight_mode=drop", "tis_cap=2"])
    with pytest.raises(ConfigError, match="max_version_lag"):
        load_config(None, ["max_version_lag=-2"])
