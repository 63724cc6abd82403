"""The semi-online source (UI-S1): copies of expert episodes run with the model's own history.

Each step takes ``tasks_per_step`` train tasks that have an expert trajectory and runs
``group_size`` semi-online copies of each
(:class:`agentgym.rollout.semionline.SemiOnlineRollout`: the model's own history, the expert's
observations, the patch module with ``patch_threshold`` / ``patch_mode``).
"""

from __future__ import annotations

from typing import Any

from agentgym.rollout import ExpertTrajectory, SemiOnlineRollout

from ..config import TrainConfig
from ..data import shard
from ..distributed import DistInfo
from ..parts import Collected
from ..state import TrainState
from . import SourceBase


class SemiOnlineSource(SourceBase):
    """Groups of semi-online copies, one group per sampled task."""

    def __init__(self, cfg: TrainConfig, semi: SemiOnlineRollout,
                 experts: dict[str, ExpertTrajectory], sampler: Any, dist: DistInfo) -> None:
        self.cfg, self.semi, self.experts = cfg, semi, experts
        self.sampler, self.dist = sampler, dist

    def collect(self, state: TrainState) -> Collected:
        """This rank's tasks' copies (``samples``: one list of copies per task)."""
        cfg, d = self.cfg, self.dist
        local = shard(self.sampler.take(cfg.tasks_per_step), d.rank, d.world_size)
        experts = [self.experts[i] for i in local if i in self.experts]
        groups = self.semi.run(experts, cfg.group_size, round=state.round)
        state.round += 1
        return Collected(samples=groups)


__all__ = ["SemiOnlineSource"]
