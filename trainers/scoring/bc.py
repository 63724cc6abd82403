"""The behaviour-cloning objective: advantage 1 on every expert token, the ``nll`` loss.

The batch averages over every trained token (``token_mean``); the update runs at ``bc_lr`` with
temperature 1, one epoch, no importance weights and no KL term, whatever the RL phase uses.
"""

from __future__ import annotations

import dataclasses

import torch

from ..batch import collate
from ..config import TrainConfig
from ..experts import nll_loss
from ..parts import Collected, Scored


class BCObjective:
    """Plain NLL on the expert's responses."""

    def __init__(self, cfg: TrainConfig, pad_id: int) -> None:
        self.cfg, self.pad_id, self.loss_fn = cfg, pad_id, nll_loss
        self.update_cfg = dataclasses.replace(cfg, temperature=1.0, ppo_epochs=1, tis_cap=0.0,
                                              kl_coef=0.0)

    def score(self, collected: Collected) -> Scored:
        """The expert trajectories as one batch, each with advantage 1."""
        trajs = collected.samples
        batch = collate(trajs, torch.ones(len(trajs)), pad_id=self.pad_id,
                        loss_agg="token_mean", share_prompt=False)
        options = {"lr": self.cfg.bc_lr, "loss_fn": self.loss_fn, "cfg": self.update_cfg}
        return Scored(batch, [], options=options, figures={"episodes": float(len(trajs))})

    def metrics(self, collected: Collected, scored: Scored, update: dict[str, float],
                times: tuple[float, float, float]) -> dict[str, float]:
        """BC loss, episodes, gradient norm, learning rate and trained tokens."""
        del collected, times
        return {"bc_loss": update["loss"], "bc_episodes": scored.figures["episodes"],
                "grad_norm": update["grad_norm"], "lr": self.cfg.bc_lr,
                "train_tokens": update["train_tokens"]}


__all__ = ["BCObjective"]
