"""RLOO, the objective added as one file: hand-computed advantages and a tiny training run."""

from __future__ import annotations

import pytest
import torch

import agentgym
from agentgym.trainers.objectives.rloo import rloo_advantages


def test_rloo_advantages_by_hand():
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 5.0])
    adv = rloo_advantages(rewards, ["a", "a", "a", "b", "c"])
    # group a: 1 - (0 + 0) / 2 = 1; 0 - (1 + 0) / 2 = -0.5 (twice); b: 1 vs nothing... b has one
    # sample and c has one sample: no baseline, 0
    assert adv.tolist() == pytest.approx([1.0, -0.5, -0.5, 0.0, 0.0])
    adv = rloo_advantages(torch.tensor([2.0, 4.0]), [0, 0])
    assert adv.tolist() == pytest.approx([-2.0, 2.0])  # 2 - 4, 4 - 2


def test_rloo_is_an_algorithm_and_trains(tiny_cfg):
    assert "rloo" in agentgym.get_registry("trainers")
    assert "advantage/rloo" in agentgym.get_registry("losses")
    from agentgym.trainers import GRPOTrainer

    cfg = tiny_cfg("algorithm=rloo", "steps=1")
    assert (cfg.advantage, cfg.loss, cfg.loss_agg) == ("rloo", "ppo_clip", "token_mean")
    result = GRPOTrainer(cfg).train()
    assert result.steps == 1
