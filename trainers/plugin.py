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

from .objectives import RUN, discover, register_objectives

PRESETS: dict[str, dict[str, Any]] = {o.name: dict(o.preset) for o in discover()}
"""Config values each objective (``trainers/objectives/``) sets; the YAML file and overrides win."""


BC_TRAINER = "agentgym.trainers.grpo:GRPOTrainer"
"""BC + GRPO is the schedule [bc, grpo] of the one trainer (``trainers/schedule.py``)."""
SEMI_ONLINE_TRAINER = "agentgym.trainers.grpo:GRPOTrainer"
SEMI_ONLINE_PRESET: dict[str, Any] = {
    **PRESETS["grpo"], "advantage": "semi_online", "patch_threshold": 2,
    "patch_mode": "thought_free", "semi_gamma": 0.5,
}
"""Semi-online RL (UI-S1): reference values (N copies = ``group_size``)."""


@hookimpl
def agentgym_register_trainers(register: Any) -> None:
    """Register every objective of ``trainers/objectives/`` (the GRPO family, RLOO...), BC +
    GRPO and semi-online RL (with optional BC warm-up)."""
    register_objectives(register_trainer=register)
    register("bc_grpo", BC_TRAINER, preset=PRESETS["grpo"], run=RUN,
             description="Behaviour cloning on expert trajectories (bc_steps), then GRPO.")
    register("semi_online", SEMI_ONLINE_TRAINER, preset=SEMI_ONLINE_PRESET, run=RUN,
             description="UI-S1 semi-online RL on expert trajectories, patch module, SOP.")


@hookimpl
def agentgym_register_losses(register: Any) -> None:
    """Register the objectives' losses and advantage estimators, and the other phases'."""
    register_objectives(register_loss=register)
    register("advantage/semi_online",
             "agentgym.trainers.semionline_returns:semi_online_step_advantages",
             description="UI-S1: step + episode advantages of discounted semi-online returns.")
    register("loss/nll", "agentgym.trainers.bc:nll_loss",
             description="Behaviour cloning: -logp times the advantage (1 = plain NLL).")


@hookimpl
def agentgym_register_services(register: Any) -> None:
    """Register ``gateway-eval``: ``agentgym eval --agent``'s collector (the trainer's own)."""
    register("gateway-eval", "agentgym.trainers.gateway_rollouts:play_held_out",
             description="Greedy held-out episodes of agent programs through the gateway.")
