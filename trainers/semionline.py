"""Semi-online RL (UI-S1): RL on recorded expert trajectories as if online.

A phase of the schedule (``algorithm: semi_online``; ``bc_steps`` behaviour-cloning steps may
come first). One step is the trainer's one step with this phase's parts:

1. :class:`~agentgym.trainers.sources.semionline.SemiOnlineSource`: ``tasks_per_step`` train
   tasks that have an expert trajectory, ``group_size`` semi-online copies of each
   (:class:`agentgym.rollout.semionline.SemiOnlineRollout`: the model's own history, the
   expert's observations, the patch module with ``patch_threshold`` / ``patch_mode``); every
   step of every copy is one training sample (its prompt at that step + the generated turn);
2. :class:`~agentgym.trainers.scoring.semionline.SemiOnlineObjective`: drop tasks whose step-0
   returns vary too little (std <= ``semi_filter_std``), advantages from the ``advantage``
   estimator (``semi_online``: :mod:`agentgym.trainers.semionline_returns`);
3. the learner's update, as for GRPO (``loss``, ``loss_agg``, micro-batches, the weight push).

Evaluations report the true online success on the held-out split and, with ``sop_eval``, SOP,
TSR and PG on the same split's expert trajectories. Resuming works as for GRPO: the sampling
seeds derive from the saved rollout round.
"""

from __future__ import annotations

from .grpo import GRPOTrainer
from .scoring.semionline import step_trajectories
from .sources.semionline import semi_online_parts


class SemiOnlineTrainer(GRPOTrainer):
    """The trainer under its earlier name for semi-online runs: ``algorithm: semi_online``
    makes the schedule's learning phase semi-online; nothing here differs."""


__all__ = ["SemiOnlineTrainer", "semi_online_parts", "step_trajectories"]
