"""The semi-online source (UI-S1): copies of expert episodes run with the model's own history.

Each step takes ``tasks_per_step`` train tasks that have an expert trajectory and runs
``group_size`` semi-online copies of each
(:class:`agentgym.rollout.semionline.SemiOnlineRollout`: the model's own history, the expert's
observations, the patch module with ``patch_threshold`` / ``patch_mode``).
"""

from __future__ import annotations

from typing import Any

from agentgym.policies import SamplingParams
from agentgym.rollout import ExpertTrajectory, SemiOnlineRollout, matcher_for_env

from ..config import TrainConfig
from ..data import shard
from ..distributed import DistInfo
from ..parts import Collected
from ..scoring.semionline import SemiOnlineObjective
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


def semi_online_parts(trainer: Any) -> tuple[SemiOnlineSource, SemiOnlineObjective]:
    """The semi-online phase's source and objective over the trainer's policy and experts."""
    cfg = trainer.cfg
    assert trainer.dist is not None
    matcher = matcher_for_env(cfg.env, {**cfg.env_kwargs, "split": cfg.train_split})
    sampling = SamplingParams(max_tokens=cfg.max_new_tokens, temperature=cfg.temperature,
                              top_p=cfg.top_p)
    semi = SemiOnlineRollout(
        trainer.policy, matcher, sampling=sampling, patch_threshold=cfg.patch_threshold,
        patch_mode=cfg.patch_mode, max_tokens=cfg.max_tokens, seed=cfg.seed)
    source = SemiOnlineSource(cfg, semi, trainer.experts, trainer.sampler, trainer.dist)
    objective = SemiOnlineObjective(cfg, trainer.adv_fn, pad_id=trainer.pad_id,
                                    share_prompt=trainer.share_prompt, dist=trainer.dist)
    return source, objective


__all__ = ["SemiOnlineSource", "semi_online_parts"]
