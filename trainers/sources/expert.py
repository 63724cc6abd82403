"""The expert source: recorded expert episodes for behaviour cloning.

Each step takes ``bc_batch_size`` train tasks from the run's sampler and turns each task's
expert episode (every context of it, under summarised context) into the engine's token layout
(:func:`~agentgym.trainers.bc.expert_training_trajectory`): the loss falls on the expert's
responses only, with exactly the masks RL trains on.
"""

from __future__ import annotations

from typing import Any

from agentgym import ConfigError
from agentgym.rollout import ChatFormat, ExpertTrajectory

from ..experts import expert_training_trajectory
from ..parts import Collected
from ..state import TrainState
from . import SourceBase


class ExpertSource(SourceBase):
    """Expert trajectories of the sampled train tasks, in the engine's token layout."""

    def __init__(self, experts: dict[str, ExpertTrajectory], sampler: Any, chat: ChatFormat,
                 eos_id: int, batch_size: int) -> None:
        self.experts, self.sampler = experts, sampler
        self.chat, self.eos_id, self.batch_size = chat, eos_id, batch_size

    def collect(self, state: TrainState) -> Collected:
        """``batch_size`` tasks' expert episodes; refused when none of them has one."""
        del state  # expert replay moves no rollout round
        ids = self.sampler.take(self.batch_size)
        trajs = [expert_training_trajectory(context, self.chat, self.eos_id)
                 for i in ids if i in self.experts
                 for context in self.experts[i].all_contexts()]
        if not trajs:
            raise ConfigError("no expert trajectory for the sampled train tasks")
        return Collected(samples=trajs)


__all__ = ["ExpertSource"]
