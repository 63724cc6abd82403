"""The engine source: GRPO groups rolled out by the engine (or by agents through the gateway).

One collection: take ``tasks_per_step`` tasks from the train split (this rank's share under
DDP), roll out ``group_size`` episodes of each (curation may size groups per task: DARS, VADE,
DART); with DAPO's dynamic sampling, groups whose rewards all match are dropped and more tasks
are rolled out, up to ``max_refill_rounds`` times.
"""

from __future__ import annotations

from typing import Any

from agentgym.rollout import Trajectory

from ..advantages import informative_groups
from ..config import TrainConfig
from ..curation import curation
from ..data import shard
from ..distributed import DistInfo
from ..parts import Collected
from ..rollouts import RolloutResult
from ..state import TrainState
from . import SourceBase


def informative(groups: list[list[Trajectory]]) -> list[list[Trajectory]]:
    """The groups whose rewards are not all equal (DAPO's dynamic sampling)."""
    flat = [t for g in groups for t in g]
    keep = set(informative_groups([t.reward for t in flat], [t.group_id for t in flat]))
    return [g for g in groups if g[0].group_id in keep]


class EngineSource(SourceBase):
    """Groups from ``rollouts`` (:class:`~..rollouts.Rollouts` or the gateway's)."""

    def __init__(self, cfg: TrainConfig, rollouts: Any, sampler: Any, dist: DistInfo) -> None:
        self.cfg = cfg
        self.rollouts = rollouts
        """The train and eval engines (replaceable: a test wraps their policy)."""
        self.sampler = sampler
        self.dist = dist

    def _rollout(self, task_ids: list[str], state: TrainState) -> RolloutResult:
        curated = curation(self.sampler)  # issue 17: DARS, VADE, DART
        result: RolloutResult = self.rollouts.groups(
            task_ids, state.round, curated.group_sizes(task_ids) if curated else None)
        state.round += 1
        if curated is not None:
            result.groups = curated.curate(result.groups)
        return result

    def collect(self, state: TrainState) -> Collected:
        """This rank's groups for one step (dynamic sampling refills dropped groups)."""
        cfg, d = self.cfg, self.dist
        local = shard(self.sampler.take(cfg.tasks_per_step), d.rank, d.world_size)
        first = self._rollout(local, state)
        groups = first.groups
        if cfg.dynamic_sampling:
            groups = informative(groups)
            first.dropped_groups = len(first.groups) - len(groups)
            for _ in range(cfg.max_refill_rounds):
                if len(groups) >= len(local):
                    break
                more = self._rollout(self.sampler.take(len(local) - len(groups)), state)
                kept = informative(more.groups)
                first.dropped_groups += len(more.groups) - len(kept)
                first.seconds += more.seconds
                first.generated_tokens += more.generated_tokens
                first.extra["env_steps"] = (first.extra.get("env_steps", 0)
                                            + more.extra.get("env_steps", 0))
                groups += kept
            groups = groups[: len(local)]
        return Collected(groups=groups, result=first)

    def evaluate(self, task_ids: list[str]) -> dict[str, float]:
        """Held-out success (greedy and sampled) on this rank's ``task_ids``."""
        result: dict[str, float] = self.rollouts.evaluate(task_ids, self.dist)
        return result

    def close(self) -> None:
        """Close the engines."""
        self.rollouts.close()


__all__ = ["EngineSource", "informative"]
