"""Run statistics: policy busy time (for the idle share) and engine counters."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any


class BusyTracker:
    """Measures the time during which at least one policy request is in flight."""

    def __init__(self) -> None:
        self.inflight = 0
        self.busy_s = 0.0
        self._since = 0.0

    @contextmanager
    def busy(self) -> Iterator[None]:
        """Mark one request in flight for the duration of the block."""
        if self.inflight == 0:
            self._since = time.monotonic()
        self.inflight += 1
        try:
            yield
        finally:
            self.inflight -= 1
            if self.inflight == 0:
                self.busy_s += time.monotonic() - self._since

    def total(self) -> float:
        """Busy seconds so far, counting an interval still open."""
        open_s = time.monotonic() - self._since if self.inflight else 0.0
        return self.busy_s + open_s


@dataclass
class EngineStats:
    """What one engine run did and how long the policy sat idle."""

    trajectories: int = 0
    aborted: int = 0
    truncated: int = 0
    generated_tokens: int = 0
    turns: int = 0
    wall_s: float = 0.0
    policy_busy_s: float = 0.0
    env_replacements: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def policy_idle_share(self) -> float:
        """Share of wall time with no policy request in flight (waiting on envs or the engine)."""
        return 1.0 - self.policy_busy_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def trajectories_per_s(self) -> float:
        """Finished trajectories per wall-clock second."""
        return self.trajectories / self.wall_s if self.wall_s > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain dict including the derived rates."""
        return {
            **asdict(self),
            "policy_idle_share": self.policy_idle_share,
            "trajectories_per_s": self.trajectories_per_s,
        }


__all__ = ["BusyTracker", "EngineStats"]
