"""Gated reward accumulation for long episodes: intermediate rewards count only past a gate.

Long-horizon agents trained on dense step rewards learn to farm them (run a test, edit a file,
call a tool) without finishing the task. Gated reward accumulation (G-RA, from the gated-reward
SWE framework) keeps the dense signal but pays it only when the episode's outcome clears a gate:

``R = outcome + sum(intermediate)`` if ``outcome >= gate``, else ``R = outcome``.

:class:`GatedReward` wraps any env: every non-final step returns 0 and its reward is held back;
the step that terminates the episode returns ``R`` (``weight`` scales the intermediate sum, so
``weight * sum`` can be kept below the outcome's scale). A truncated or aborted episode has no
outcome: its held-back rewards are dropped and it returns 0 (aborted episodes are not scored).
``info["gated"]`` reports the outcome, the env's success, the held-back sum and whether the gate
opened.

The gate reads the env's own verdict: when the terminal step's ``info`` holds ``success`` (every
:class:`~agentgym.TaskToolEnv` and :class:`~agentgym.SeatEnv` reports it), the gate opens exactly
when it is true and ``gate`` is not consulted. The last step's reward is not the outcome where
rewards come per step: a game seat's final hand can pay while the match is lost. Only an env
that reports no ``success`` is gated on its terminal reward against ``gate``.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from .env import AgentEnv, Observation, StepResult
from .wrappers import Wrapper


class GatedReward(Wrapper):
    """Hold intermediate rewards back; pay them at the end only if the outcome reaches ``gate``."""

    def __init__(self, env: AgentEnv | gymnasium.Env, gate: float = 1.0,
                 weight: float = 1.0) -> None:  # fmt: skip
        super().__init__(env)
        self.gate = float(gate)
        self.weight = float(weight)
        self.held = 0.0
        """Intermediate rewards held back so far this episode."""

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """Reset the env and the held-back rewards."""
        self.held = 0.0
        return super().reset(seed=seed, options=options)

    async def areset(self, *, seed: int | None = None,
                     options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """Async twin of :meth:`reset`."""
        self.held = 0.0
        return await super().areset(seed=seed, options=options)

    def _gate(self, result: StepResult) -> StepResult:
        obs, reward, terminated, truncated, info = result
        if not (terminated or truncated):
            self.held += float(reward)
            return obs, 0.0, terminated, truncated, info
        outcome = float(reward)
        success = info.get("success")
        passed = bool(success) if success is not None else outcome >= self.gate
        opened = terminated and not info.get("aborted") and passed
        paid = outcome + self.weight * self.held if opened else (outcome if terminated else 0.0)
        info = {**info, "gated": {"outcome": outcome, "success": success,
                                  "intermediate": self.held, "opened": bool(opened)}}
        self.held = 0.0
        return obs, paid, terminated, truncated, info

    def step(self, action: Any) -> StepResult:
        """Step the env; hold back or pay out the intermediate rewards."""
        return self._gate(self._inner.step(action))

    async def astep(self, action: Any) -> StepResult:
        """Async twin of :meth:`step`."""
        return self._gate(await self._inner.astep(action))


__all__ = ["GatedReward"]
