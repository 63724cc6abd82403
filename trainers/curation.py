"""Adaptive task sampling: per-task Beta posteriors of success, VADE, DARS and DART.

Every task starts with a ``Beta(1, 1)`` posterior of its success rate; each rolled-out group
adds its successes to ``alpha`` and its failures to ``beta`` (aborted episodes are not the
model's and count for neither). Three options of :class:`CuratedSampler`, each from the config:

- **VADE** (``task_sampling: vade``): draw ``p ~ Beta(alpha, beta)`` for every task (Thompson
  sampling) and take the tasks whose group is most likely to be informative,
  ``1 - p^G - (1 - p)^G`` (:func:`informativeness`: the chance that a group of ``G`` rollouts is
  neither all-success nor all-fail, the only groups that give a GRPO gradient).
- **DARS** (``dars_max_group_size: M``): hard tasks get more rollouts,
  ``G_i = G + round((M - G) * (1 - mean_i))`` (:func:`dars_group_size`).
- **DART** (``dart_buffer: K``): keep up to ``K`` successful trajectories of each task whose
  posterior mean is below ``rare_success`` and put one in place of the last member of a later
  group of that task in which every episode failed (:class:`SuccessBuffer`). The replayed
  trajectory keeps its token versions, so version masking and truncated IS see it as old, and
  it is marked ``info["dart_replay"] = True`` (the trainer leaves it out of success metrics).

The whole state (cursor, posteriors, draw counter, buffer) is in :meth:`CuratedSampler.state_dict`,
saved with each checkpoint, so a resumed run samples exactly as an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agentgym.rollout import Trajectory

from .data import TaskSampler


def informativeness(p: float | np.ndarray, group_size: int) -> Any:
    """``1 - p^G - (1 - p)^G``: the chance a group of ``G`` rollouts has mixed outcomes."""
    return 1.0 - p**group_size - (1.0 - p) ** group_size


def dars_group_size(mean: float, base: int, max_size: int) -> int:
    """DARS rollouts for a task of estimated success ``mean``: ``base`` (easy) to ``max_size``."""
    if max_size <= base:
        return base
    return base + int(round((max_size - base) * (1.0 - mean)))


def _usable(group: Sequence[Trajectory]) -> list[Trajectory]:
    return [t for t in group if not t.aborted and not t.info.get("dart_replay")]


@dataclass
class SuccessBuffer:
    """DART: successful trajectories of rarely solved tasks, replayed into all-fail groups."""

    per_task: int
    """Most successes kept per task (the newest win)."""
    items: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Task id -> stored trajectories (as :meth:`Trajectory.to_dict`, checkpoint-friendly)."""

    def add(self, group: Sequence[Trajectory]) -> None:
        """Store the group's successes (oldest dropped beyond ``per_task``)."""
        for t in _usable(group):
            if t.success and t.task_id is not None:
                kept = self.items.setdefault(t.task_id, [])
                kept.append(t.to_dict())
                del kept[: max(len(kept) - self.per_task, 0)]

    def mix(self, group: list[Trajectory]) -> list[Trajectory]:
        """The group with its last member replaced by a stored success, when every usable
        episode failed and the buffer holds one for this task; else the group unchanged."""
        real = _usable(group)
        task = group[0].task_id if group else None
        if not real or any(t.success for t in real) or task not in self.items:
            return group
        last = real[-1]
        stored = Trajectory.from_dict(self.items[task][-1])
        replay = replace(stored, group_id=last.group_id, sample_idx=last.sample_idx,
                         info={**stored.info, "dart_replay": True})
        return [replay if t is last else t for t in group]


@dataclass
class CuratedSampler(TaskSampler):
    """A :class:`TaskSampler` that learns which tasks are informative (VADE, DARS, DART)."""

    mode: str = "uniform"
    """``uniform`` (the seeded epochs of :class:`TaskSampler`) or ``vade``."""
    group_size: int = 8
    """The run's G: the VADE score's group size and DARS's minimum."""
    dars_max_group_size: int = 0
    """DARS: most rollouts for the hardest tasks; 0 or ``<= group_size`` = off."""
    dart_buffer: int = 0
    """DART: successes kept per rare task; 0 = off."""
    rare_success: float = 0.5
    """DART keeps successes of tasks whose posterior mean is below this."""
    posteriors: dict[str, list[float]] = field(default_factory=dict)
    """Task id -> ``[alpha, beta]``; missing tasks are at the prior ``[1, 1]``."""
    draws: int = 0
    """VADE draws made (seeds the next draw, so resume is exact)."""
    buffer: SuccessBuffer = field(default_factory=lambda: SuccessBuffer(0))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode not in ("uniform", "vade"):
            raise ValueError(f"task sampling must be uniform or vade, not {self.mode!r}")
        self.buffer.per_task = self.dart_buffer

    def posterior(self, task_id: str) -> tuple[float, float]:
        """``(alpha, beta)`` of a task."""
        a, b = self.posteriors.get(task_id, [1.0, 1.0])
        return a, b

    def mean(self, task_id: str) -> float:
        """Posterior mean success ``alpha / (alpha + beta)``."""
        a, b = self.posterior(task_id)
        return a / (a + b)

    def take(self, n: int) -> list[str]:
        """The next ``n`` tasks: uniform epochs, or VADE's most informative Thompson draws."""
        if self.mode == "uniform":
            return super().take(n)
        rng = np.random.default_rng([self.seed, 17, self.draws])
        self.draws += 1
        ab = np.array([self.posterior(t) for t in self.task_ids])  # (N, 2)
        p = rng.beta(ab[:, 0], ab[:, 1])  # (N,)
        order = np.argsort(-informativeness(p, self.group_size), kind="stable")
        return [self.task_ids[order[i % len(order)]] for i in range(n)]

    def group_sizes(self, task_ids: Sequence[str]) -> list[int]:
        """Rollouts per task (DARS: more for tasks with a low posterior mean)."""
        return [dars_group_size(self.mean(t), self.group_size, self.dars_max_group_size)
                for t in task_ids]

    def curate(self, groups: list[list[Trajectory]]) -> list[list[Trajectory]]:
        """Update the posteriors from fresh groups, then apply DART; returns the groups to train."""
        for group in groups:
            real = _usable(group)
            if not real or real[0].task_id is None:
                continue
            wins = sum(t.success for t in real)
            a, b = self.posterior(real[0].task_id)
            self.posteriors[real[0].task_id] = [a + wins, b + len(real) - wins]
        if self.dart_buffer <= 0:
            return groups
        out = [self.buffer.mix(g) for g in groups]
        for group in groups:
            if group and group[0].task_id is not None and \
                    self.mean(group[0].task_id) < self.rare_success:
                self.buffer.add(group)
        return out

    def state_dict(self) -> dict[str, Any]:  # type: ignore[override]
        """Cursor, posteriors, VADE draw counter and DART buffer."""
        return {**super().state_dict(), "posteriors": {k: list(v) for k, v in
                                                       self.posteriors.items()},
                "draws": self.draws, "buffer": {k: list(v) for k, v in self.buffer.items.items()}}

    def load_state_dict(self, state: dict[str, Any]) -> None:  # type: ignore[override]
        """Restore :meth:`state_dict` (a plain sampler's cursor-only state is accepted)."""
        super().load_state_dict(state)
        self.posteriors = {k: list(v) for k, v in state.get("posteriors", {}).items()}
        self.draws = int(state.get("draws", 0))
        self.buffer.items = {k: list(v) for k, v in state.get("buffer", {}).items()}


@runtime_checkable
class CuratesGroups(Protocol):
    """A sampler that sizes each task's group and curates the rolled-out groups (DARS, VADE,
    DART): the trainer checks this once, never probing for the methods in a step."""

    def group_sizes(self, task_ids: Sequence[str]) -> list[int]:
        """The group size of each task."""
        ...

    def curate(self, groups: list[list[Trajectory]]) -> list[list[Trajectory]]:
        """The groups to train on (replays added, posteriors updated)."""
        ...


def curation(sampler: TaskSampler) -> CuratesGroups | None:
    """``sampler`` as a :class:`CuratesGroups`, or None for a plain sampler."""
    return sampler if isinstance(sampler, CuratesGroups) else None


def make_sampler(cfg: Any, task_ids: Sequence[str]) -> TaskSampler:
    """The run's task sampler: a plain :class:`TaskSampler` unless a curation option is on."""
    curated = (cfg.task_sampling != "uniform" or cfg.dars_max_group_size > cfg.group_size
               or cfg.dart_buffer > 0)
    if not curated:
        return TaskSampler(task_ids, seed=cfg.seed)
    return CuratedSampler(task_ids, seed=cfg.seed, mode=cfg.task_sampling,
                          group_size=cfg.group_size,
                          dars_max_group_size=cfg.dars_max_group_size,
                          dart_buffer=cfg.dart_buffer)


__all__ = ["CuratedSampler", "CuratesGroups", "SuccessBuffer", "curation", "dars_group_size",
           "informativeness", "make_sampler"]
