"""AReaL's staleness bound for asynchronous rollouts: a capacity rule on started samples.

With batch size ``B`` (episodes per trainer step) and bound ``eta``, at most
``(eta + v + 1) * B`` episodes may have been started while the trainer is at version ``v``
(``v`` updates done). A sample started at version ``s`` is trained at a version ``<= s + eta``
at the latest, so no trained sample is more than ``eta`` versions old. ``eta = 0`` allows only
the current step's ``B`` episodes: the generator waits for every update, which is exactly the
synchronous trainer's schedule.

The bound is checked again on resume (AReaL #1388, verl #5815: staleness past the bound after a
restart): episodes that were in flight when the process died are gone, so the started count is
rebuilt from what the checkpoint holds (:meth:`StalenessGate.resume`) and must fit the capacity
of the restored version. Every wait has a timeout (:meth:`StalenessGate.wait_start`).

>>> gate = StalenessGate(batch_size=4, eta=2)
>>> gate.capacity(), gate.try_start(20), gate.room()
(12, 12, 0)
>>> gate.advance(1); gate.try_start(20)
4
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from agentgym import AgentGymError


class StalenessError(AgentGymError):
    """More episodes were started than the staleness bound allows at the trainer's version."""


@dataclass
class StalenessGate:
    """Admits new episodes while ``started < (eta + version + 1) * batch_size``."""

    batch_size: int
    """``B``: episodes the trainer consumes per step."""
    eta: int = 0
    """Most versions a trained sample may lag the trainer by; 0 = synchronous."""
    started: int = 0
    """Episodes started so far (the generator's counter)."""
    version: int = 0
    """The trainer's version (updates done)."""
    _changed: asyncio.Condition | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")
        if self.eta < 0:
            raise ValueError(f"eta must be 0 or more, got {self.eta}")

    def capacity(self, version: int | None = None) -> int:
        """``(eta + v + 1) * B`` at ``version`` (default: the current one)."""
        v = self.version if version is None else version
        return (self.eta + v + 1) * self.batch_size

    def room(self) -> int:
        """Episodes that may start now."""
        return max(self.capacity() - self.started, 0)

    def try_start(self, n: int = 1) -> int:
        """Start up to ``n`` episodes; returns how many were admitted (0 when at the bound)."""
        granted = min(max(n, 0), self.room())
        self.started += granted
        return granted

    def cancel(self, n: int) -> None:
        """Give back ``n`` admitted episodes that never ran (e.g. dropped before their start)."""
        if not 0 <= n <= self.started:
            raise ValueError(f"cannot cancel {n} of {self.started} started episodes")
        self.started -= n
        self._notify()

    def advance(self, version: int) -> None:
        """The trainer reached ``version`` (after an update): more room, waiters wake up."""
        if version < self.version:
            raise ValueError(f"trainer version went back from {self.version} to {version}")
        self.version = version
        self._notify()

    def check(self) -> None:
        """Raise :class:`StalenessError` when ``started`` exceeds the capacity."""
        if self.started > self.capacity():
            raise StalenessError(
                f"{self.started} episodes started at trainer version {self.version}, but the "
                f"staleness bound eta={self.eta} allows {self.capacity()} "
                f"(batch size {self.batch_size})")

    def resume(self, version: int, consumed: int, buffered: int = 0) -> None:
        """Rebuild the counter after a restart and check the bound.

        ``consumed`` episodes were trained on before the checkpoint and ``buffered`` are held in
        it (finished or partial, not yet trained); episodes in flight at the crash are lost and
        no longer count.
        """
        self.version, self.started = version, consumed + buffered
        self.check()

    async def wait_start(self, n: int = 1, timeout_s: float = 60.0) -> int:
        """Wait (at most ``timeout_s``) until there is room, then start up to ``n`` episodes.

        Raises :class:`TimeoutError` when the trainer does not advance in time (never hangs).
        """
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: self.room() > 0), timeout_s)
            return self.try_start(n)

    def _notify(self) -> None:
        cond = self._changed
        if cond is None:
            return

        async def wake() -> None:
            async with cond:
                cond.notify_all()

        try:
            asyncio.get_running_loop().create_task(wake())
        except RuntimeError:  # no loop running: nobody can be waiting
            pass

    def state_dict(self) -> dict[str, int]:
        """Counter and version (``batch_size`` and ``eta`` come from the config)."""
        return {"started": self.started, "version": self.version}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict` and check the bound (a changed eta may violate it)."""
        self.started, self.version = int(state["started"]), int(state["version"])
        self.check()


def staleness(start_version: int, train_version: int) -> int:
    """Versions a sample started at ``start_version`` lags when trained at ``train_version``."""
    return train_version - start_version


__all__ = ["StalenessError", "StalenessGate", "staleness"]
