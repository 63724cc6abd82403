"""The record a replay fork needs, kept by every env as it plays (:mod:`agentgym.fork`)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ForkTrace:
    """What a replay fork needs: the episode's reset arguments and its actions so far."""

    seed: int | None
    options: dict[str, Any]
    actions: list[Any] = field(default_factory=list)


_ATOMS = (str, int, float, bool, bytes, type(None))
"""Immutable values a trace keeps as they are (a copy of each step's action costs about as
much as a whole step of a light env)."""


def _copy(value: Any) -> Any:
    return value if isinstance(value, _ATOMS) else copy.deepcopy(value)


def record_reset(env: Any, seed: int | None, options: dict[str, Any] | None) -> None:
    """Start the episode's fork trace (called by :meth:`agentgym.AgentEnv.reset`)."""
    env._fork_trace = ForkTrace(seed, {k: _copy(v) for k, v in (options or {}).items()})


def record_step(env: Any, action: Any) -> None:
    """Add an action to the episode's fork trace (called by :meth:`agentgym.AgentEnv.step`)."""
    trace = getattr(env, "_fork_trace", None)
    if trace is not None:
        try:
            trace.actions.append(_copy(action))
        except Exception:  # an action that cannot be copied: replay is no longer possible
            env._fork_trace = None


__all__ = ["ForkTrace", "record_reset", "record_step"]
