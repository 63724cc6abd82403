"""The units of work of the asynchronous rollout generator: groups in flight and rounds.

A :class:`GroupSlot` is one GRPO group: its request (task, round of origin, size), the
trajectories already finished and the episodes still running or parked. A :class:`Round` is the
work of one trainer step. Both serialise to plain data for checkpoints (running episodes are
not saved: they start again from their request, with the same seeds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentgym.rollout import Trajectory

from .partial import RunningEpisode


@dataclass(eq=False)
class GroupSlot:
    """One GRPO group in flight: its requests' finished trajectories and running episodes."""

    origin: int
    """Round whose seeds the group uses (its id is ``r<origin>:<task>``)."""
    task_id: str
    size: int
    seed: int
    done: dict[int, Trajectory] = field(default_factory=dict)
    """Finished trajectories by sample index."""
    running: dict[int, RunningEpisode] = field(default_factory=dict)
    """Started, unfinished episodes by sample index (parked or in flight)."""
    stops: int = 0
    """Times APRIL stopped its episodes (a group is stopped once at most, so none starves)."""

    @property
    def complete(self) -> bool:
        """Every sample finished."""
        return len(self.done) == self.size

    def trajectories(self) -> list[Trajectory]:
        """The finished trajectories in sample order."""
        return [self.done[i] for i in sorted(self.done)]

    def spec(self) -> dict[str, Any]:
        """JSON-safe state: the request and the finished trajectories."""
        return {"origin": self.origin, "task_id": self.task_id, "size": self.size,
                "done": [t.to_dict() for t in self.trajectories()]}

    @classmethod
    def from_spec(cls, spec: dict[str, Any], seed: int) -> GroupSlot:
        """Inverse of :meth:`spec` (running episodes are gone: they start again)."""
        slot = cls(int(spec["origin"]), str(spec["task_id"]), int(spec["size"]), seed)
        for d in spec["done"]:
            t = Trajectory.from_dict(d)
            slot.done[t.sample_idx] = t
        return slot


@dataclass
class Round:
    """The groups of one trainer step (plus APRIL's spares)."""

    index: int
    version: int
    """Trainer version when the round started."""
    slots: list[GroupSlot]
    batch: list[GroupSlot] | None = None
    """The ``B`` groups handed to the trainer (set when the round is complete)."""
    seconds: float = 0.0
    adopt: Callable[[GroupSlot], None] | None = field(default=None, repr=False)
    """While the round runs (APRIL): takes over a group another round stopped, so parked
    episodes never sit on env workers that running rounds wait for."""


__all__ = ["GroupSlot", "Round"]
