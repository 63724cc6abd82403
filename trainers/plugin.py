"""Registers the built-in trainers, losses and advantage estimators through the plugin hooks.

A third-party plugin adds its own the same way::

    @hookimpl
    def agentgym_register_losses(register):
        register("loss/my_loss", "my_pkg.losses:my_loss")            # config: loss: my_loss
        register("advantage/rloo", "my_pkg.adv:rloo_advantages")     # config: advantage: rloo

    @hookimpl
    def agentgym_register_trainers(register):
        register("my_grpo", "agentgym.trainers.grpo:GRPOTrainer", preset={"loss": "my_loss"},
                 run="agentgym.trainers:run_config")

A loss has the signature of :class:`agentgym.trainers.losses.PolicyLossFn`; an advantage
estimator that of :class:`agentgym.trainers.advantages.AdvantageFn`. A trainer's ``preset`` holds
config values applied before the YAML file; its ``run`` is what ``agentgym train`` calls.
"""

from __future__ import annotations

from typing import Any

from agentgym import hookimpl

TRAINER = "agentgym.trainers.grpo:GRPOTrainer"
RUN = "agentgym.trainers:run_config"
"""What ``agentgym train`` calls: ``run(config, overrides, trainer=entry) -> TrainResult``
(``config`` is the parsed YAML mapping, ``entry`` the chosen trainer's registry entry)."""

PRESETS: dict[str, dict[str, Any]] = {
    "grpo": {
        "advantage": "grpo", "loss": "ppo_clip", "loss_agg": "seq_mean_token_mean",
        "clip_eps_low": 0.2, "clip_eps_high": 0.2,
    },
    "dr_grpo": {
        "advantage": "dr_grpo", "loss": "ppo_clip", "loss_agg": "seq_mean_token_sum_norm",
        "clip_eps_low": 0.2, "clip_eps_high": 0.2,
    },
    "dapo": {
        "advantage": "grpo", "loss": "ppo_clip", "loss_agg": "token_mean",
        "clip_eps_low": 0.2, "clip_eps_high": 0.28, "dynamic_sampling": True,
        "overlong_buffer": -1,
    },
    "gspo": {
        "advantage": "grpo", "loss": "gspo", "loss_agg": "seq_mean_token_mean",
        "clip_eps_low": 3e-4, "clip_eps_high": 4e-4,
    },
}
"""Config values each built-in algorithm name sets (the YAML file and overrides win)."""

DESCRIPTIONS = {
    "grpo": "GRPO: group-normalised advantages, PPO-clip, per-sequence token mean.",
    "dr_grpo": "Dr. GRPO: no std division, token sum over a constant length.",
    "dapo": "DAPO: clip-higher, token-level mean, dynamic sampling, overlong shaping.",
    "gspo": "GSPO: sequence-level importance ratio clipped per sequence.",
}


BC_TRAINER = "agentgym.trainers.bc:BCWarmupTrainer"
SEMI_ONLINE_TRAINER = "agentgym.trainers.semionline:SemiOnlineTrainer"
SEMI_ONLINE_PRESET: dict[str, Any] = {
    **PRESETS["grpo"], "advantage": "semi_online", "patch_threshold": 2,
    "patch_mode": "thought_free", "semi_gamma": 0.5,
}
"""Semi-online RL (UI-S1): reference values (N copies = ``group_size``)."""


@hookimpl
def agentgym_register_trainers(register: Any) -> None:
    """Register the GRPO family, BC + GRPO and semi-online RL (with optional BC warm-up)."""
    for name, values in PRESETS.items():
        register(name, TRAINER, description=DESCRIPTIONS[name], preset=values, run=RUN)
    register("bc_grpo", BC_TRAINER, preset=PRESETS["grpo"], run=RUN,
             description="Behaviour cloning on expert trajectories (bc_steps), then GRPO.")
    register("semi_online", SEMI_ONLINE_TRAINER, preset=SEMI_ONLINE_PRESET, run=RUN,
             description="UI-S1 semi-online RL on expert trajectories, patch module, SOP.")


@hookimpl
def agentgym_register_losses(register: Any) -> None:
    """Register the policy losses and advantage estimators."""
    register("loss/ppo_clip", "agentgym.trainers.losses:ppo_clip_loss",
             description="PPO-clip token loss (clip-higher when eps_high > eps_low).")
    register("loss/gspo", "agentgym.trainers.losses:gspo_loss",
             description="GSPO sequence-level ratio, clipped per sequence.")
    register("advantage/grpo", "agentgym.trainers.advantages:grpo_advantages",
             description="(R - group mean) / (group std + eps).")
    register("advantage/dr_grpo", "agentgym.trainers.advantages:dr_grpo_advantages",
             description="R - group mean (Dr. GRPO).")
    register("advantage/semi_online",
             "agentgym.trainers.semionline_returns:semi_online_step_advantages",
             description="UI-S1: step + episode advantages of discounted semi-online returns.")
    register("loss/nll", "agentgym.trainers.bc:nll_loss",
             description="Behaviour cloning: -logp times the advantage (1 = plain NLL).")
