"""Rollout sources: where a phase's trajectories come from (:class:`~..parts.RolloutSource`).

- :class:`~.engine.EngineSource`: GRPO groups from the rollout engine, or from external agents
  through the gateway (:class:`~agentgym.trainers.gateway_rollouts.GatewayRollouts` has the
  engine's interface), with dynamic sampling and curation;
- :class:`~.asynchronous.AsyncSource`: the same groups from a generator running ahead of the
  updates (AReaL's staleness bound, APRIL's partial rollouts);
- :class:`~.expert.ExpertSource`: recorded expert episodes for behaviour cloning;
- :class:`~.semionline.SemiOnlineSource`: semi-online copies of expert episodes (UI-S1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..state import TrainState


class SourceBase:
    """What a source does when it has nothing to add after an update or to the metrics."""

    def after_update(self, version: int) -> None:
        """Nothing to do after an update."""

    def step_metrics(self, state: TrainState) -> dict[str, float]:
        """No figures of its own."""
        return {}

    def close(self) -> None:
        """Nothing to release."""


__all__ = ["SourceBase"]
