"""RLOO: REINFORCE with a leave-one-out baseline (Ahmadian et al., 2024; Kool et al., 2019).

Each sample of a group of ``G`` is compared with the mean of the *other* ``G - 1`` samples,

    A_i = R_i - (sum_g R - R_i) / (G - 1) = G / (G - 1) * (R_i - mean_g R),

an unbiased baseline (it does not depend on the sample it scores), with no division by the
group's standard deviation. A group of one has no baseline and gets 0. The update is the shared
PPO-clip one at ratio 1 for a single epoch (REINFORCE), token-mean aggregated as in TRL's
``RLOOTrainer``. This file is the whole algorithm: ``algorithm: rloo`` selects it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from . import Objective

if TYPE_CHECKING:
    from torch import Tensor


def rloo_advantages(rewards: Tensor, group_ids: Sequence[Hashable], eps: float = 1e-6) -> Tensor:
    """Leave-one-out advantages ``R_i - mean_{j != i} R_j`` within each group; shape ``(N,)``."""
    import torch  # when training, not when the registry lists the objectives

    from agentgym.trainers.advantages import group_stats

    mean, _std, count = group_stats(rewards, group_ids)
    scale = count / (count - 1).clamp(min=1)  # G / (G - 1)
    adv = scale * (rewards.to(torch.float64) - mean)
    return torch.where(count > 1, adv, torch.zeros_like(adv)).to(torch.float32)


OBJECTIVES = (
    Objective(
        "rloo", "RLOO: leave-one-out baseline, no std division, PPO-clip at ratio 1, token mean.",
        {"advantage": "rloo", "loss": "ppo_clip", "loss_agg": "token_mean",
         "clip_eps_low": 0.2, "clip_eps_high": 0.2},
        advantage="agentgym.trainers.objectives.rloo:rloo_advantages"),
)
"""RLOO's one preset."""
