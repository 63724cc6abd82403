"""The one place an episode's return is summed.

Every path that plays an episode (the engine's :class:`~agentgym.rollout.episode.Episode`, the
verl agent loop, the TRL environment class, the gateway's replay) adds each step's reward to an
:class:`EpisodeReturn` and reads the total from it, so they cannot disagree on what an episode
earned. A reward that is not a finite number (a scorer that returned NaN, infinity or a
non-number) fails closed: the step counts 0 and the episode's ``reward_error`` says why.
"""

from __future__ import annotations

import math
from typing import Any


class EpisodeReturn:
    """Step rewards in order and their total; non-finite rewards count 0 (fail closed)."""

    def __init__(self) -> None:
        self.steps: list[float] = []
        """Each step's reward, as counted."""
        self.error: str = ""
        """Why a step's reward was not counted ('' when every one was)."""

    def add(self, reward: Any) -> float:
        """Count one step's reward; returns the running total."""
        try:
            value = float(reward)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            self.error = f"step {len(self.steps) + 1}: reward {reward!r} is not a finite number"
            value = 0.0
        self.steps.append(value)
        return self.total

    @property
    def total(self) -> float:
        """The episode's return: the sum of its counted step rewards."""
        return float(sum(self.steps))


__all__ = ["EpisodeReturn"]
