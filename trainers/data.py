"""Task order for training: seeded epochs over the train split, with a resumable cursor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class TaskSampler:
    """Walks the task ids in a fresh seeded permutation each epoch.

    The whole state is ``(epoch, position)``, saved in checkpoints, so a resumed run draws the
    same tasks as an uninterrupted one.
    """

    task_ids: Sequence[str]
    seed: int = 0
    epoch: int = 0
    position: int = 0

    def __post_init__(self) -> None:
        if not self.task_ids:
            raise ValueError("the train split has no tasks")
        self.task_ids = list(self.task_ids)

    def _order(self, epoch: int) -> list[str]:
        rng = np.random.default_rng([self.seed, epoch])
        return [self.task_ids[i] for i in rng.permutation(len(self.task_ids))]

    def take(self, n: int) -> list[str]:
        """The next ``n`` task ids (crossing into the next epoch when needed)."""
        out: list[str] = []
        order = self._order(self.epoch)
        while len(out) < n:
            if self.position >= len(order):
                self.epoch, self.position = self.epoch + 1, 0
                order = self._order(self.epoch)
            k = min(n - len(out), len(order) - self.position)
            out.extend(order[self.position : self.position + k])
            self.position += k
        return out

    def state_dict(self) -> dict[str, int]:
        """The cursor."""
        return {"epoch": self.epoch, "position": self.position}

    def load_state_dict(self, state: dict[str, int]) -> None:
        """Restore a cursor from :meth:`state_dict`."""
        self.epoch, self.position = int(state["epoch"]), int(state["position"])


def shard(items: Sequence[str], rank: int, world: int) -> list[str]:
    """This rank's share of ``items`` (round-robin)."""
    return list(items[rank::world])


__all__ = ["TaskSampler", "shard"]
