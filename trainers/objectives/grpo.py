"""The GRPO family: GRPO, Dr. GRPO, DAPO and GSPO (one rollout/update loop, four presets)."""

from __future__ import annotations

from . import Objective

_CLIP = {"clip_eps_low": 0.2, "clip_eps_high": 0.2}

OBJECTIVES = (
    Objective(
        "grpo", "GRPO: group-normalised advantages, PPO-clip, per-sequence token mean.",
        {"advantage": "grpo", "loss": "ppo_clip", "loss_agg": "seq_mean_token_mean", **_CLIP},
        advantage="agentgym.trainers.advantages:grpo_advantages",
        extras={"loss/ppo_clip": "agentgym.trainers.losses:ppo_clip_loss"}),
    Objective(
        "dr_grpo", "Dr. GRPO: no std division, token sum over a constant length.",
        {"advantage": "dr_grpo", "loss": "ppo_clip", "loss_agg": "seq_mean_token_sum_norm",
         **_CLIP},
        advantage="agentgym.trainers.advantages:dr_grpo_advantages"),
    Objective(
        "dapo", "DAPO: clip-higher, token-level mean, dynamic sampling, overlong shaping.",
        {"advantage": "grpo", "loss": "ppo_clip", "loss_agg": "token_mean",
         "clip_eps_low": 0.2, "clip_eps_high": 0.28, "dynamic_sampling": True,
         "overlong_buffer": -1}),
    Objective(
        "gspo", "GSPO: sequence-level importance ratio clipped per sequence.",
        {"advantage": "grpo", "loss": "gspo", "loss_agg": "seq_mean_token_mean",
         "clip_eps_low": 3e-4, "clip_eps_high": 4e-4},
        loss="agentgym.trainers.losses:gspo_loss"),
)
"""The four presets of the GRPO family."""
