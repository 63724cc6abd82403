"""Behaviour cloning as a phase: ``phases: [{bc: 4}, {grpo: 8}]`` or ``algorithm: bc_grpo``.

BC is a phase of the schedule (:mod:`agentgym.trainers.schedule`); its steps take
``bc_batch_size`` expert episodes from the
:class:`~agentgym.trainers.sources.expert.ExpertSource` and train them with the
:class:`~agentgym.trainers.scoring.bc.BCObjective` (advantage 1, the ``nll`` loss, ``bc_lr``).
The pieces (expert token layout, expert data, loss, SOP hook) live in
:mod:`agentgym.trainers.experts` and are importable from here as before.
"""

from __future__ import annotations

from .experts import (
    PATIENT_S,
    SOPEval,
    chat_and_eos,
    expert_training_trajectory,
    experts_for,
    nll_loss,
    patient_rollouts,
)
from .grpo import GRPOTrainer


class BCWarmupTrainer(GRPOTrainer):
    """The trainer under its earlier name for BC + GRPO runs: the schedule of the config
    (``bc_steps``, ``phases``) decides the phases; nothing here differs."""


__all__ = ["PATIENT_S", "BCWarmupTrainer", "SOPEval", "chat_and_eos",
           "expert_training_trajectory", "experts_for", "nll_loss", "patient_rollouts"]
