"""Run statistics: policy busy time (for the idle share) and engine counters."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any


class BusyTracker:
    """Measures the time with at least one policy request in flight, and the mean number."""

    def __init__(self) -> None:
        self.inflight = 0
        self.busy_s = 0.0
        self.request_s = 0.0
        """Integral of the number of requests in flight over time (request-seconds)."""
        self._since = 0.0
        self._last = time.monotonic()

    def _tick(self) -> None:
        now = time.monotonic()
        self.request_s += self.inflight * (now - self._last)
        self._last = now

    @contextmanager
    def busy(self) -> Iterator[None]:
        """Mark one request in flight for the duration of the block."""
        self._tick()
        if self.inflight == 0:
            self._since = time.monotonic()
        self.inflight += 1
        try:
            yield
        finally:
            self._tick()
            self.inflight -= 1
            if self.inflight == 0:
                self.busy_s += time.monotonic() - self._since

    def total_requests(self) -> float:
        """Request-seconds so far."""
        self._tick()
        return self.request_s

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
    policy_request_s: float = 0.0
    """Request-seconds in flight; divided by wall time, the mean number of open requests."""
    env_replacements: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def policy_idle_share(self) -> float:
        """Share of wall time with no policy request in flight (waiting on envs or the engine)."""
        return 1.0 - self.policy_busy_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def mean_inflight(self) -> float:
        """Mean number of policy requests in flight over the run."""
        return self.policy_request_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def trajectories_per_s(self) -> float:
        """Finished trajectories per wall-clock second."""
        return self.trajectories / self.wall_s if self.wall_s > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain dict including the derived rates."""
        return {
            **asdict(self),
            "policy_idle_share": self.policy_idle_share,
            "mean_inflight": self.mean_inflight,
            "trajectories_per_s": self.trajectories_per_s,
        }


__all__ = ["BusyTracker", "EngineStats"]
