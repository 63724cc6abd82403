"""The phase schedule: which objective runs at which step (``phases: [{bc: 4}, {grpo: 8}]``).

A run is a list of phases, each an objective and a number of steps. Behaviour cloning may come
first; then one learning phase: any registered RL algorithm (``grpo``, ``dapo``, ``rloo``...,
which runs on the engine, asynchronous or gateway source) or ``semi_online``. So the BC -> GRPO
trainer is no class of its own: it is the schedule ``[{bc: 4}, {grpo: 8}]``.

The schedule is written either way:

- ``phases: [{bc: 4}, {grpo: 8}]`` (sets ``algorithm: grpo``, ``bc_steps: 4``, ``steps: 12``;
  :func:`resolve_phases` at config load, before the algorithm's preset is applied);
- the earlier keys, still read: ``algorithm: bc_grpo`` (or ``semi_online``) with ``bc_steps``
  of ``steps`` (:func:`build_schedule` maps them to the same phases).

>>> [(p.name, p.steps) for p in resolve_schedule("bc_grpo", bc_steps=4, steps=12)]
[('bc', 4), ('grpo', 8)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentgym import ConfigError

BC = "bc"
SEMI_ONLINE = "semi_online"
LEGACY = {"bc_grpo": "grpo"}
"""Algorithm names that were trainer subclasses -> the learning phase they name now."""
EXPERT_ALGORITHMS = ("bc_grpo", SEMI_ONLINE)
"""Algorithms whose runs read expert trajectories (and wait longer on a loaded CPU)."""


@dataclass(frozen=True)
class Phase:
    """One phase: an objective (``bc``, ``semi_online`` or an RL algorithm) for ``steps``."""

    name: str
    steps: int
    first_step: int = 0
    """The run's step at which the phase starts."""

    @property
    def kind(self) -> str:
        """``bc``, ``semi_online`` or ``rl`` (every engine-sourced algorithm)."""
        return self.name if self.name in (BC, SEMI_ONLINE) else "rl"

    @property
    def end(self) -> int:
        """The run's step at which the next phase starts."""
        return self.first_step + self.steps


def resolve_schedule(algorithm: str, *, bc_steps: int, steps: int) -> list[Phase]:
    """The phases of a run of ``steps`` with ``bc_steps`` behaviour-cloning steps first (all
    of them BC when ``bc_steps >= steps``)."""
    bc_steps = min(bc_steps, steps)
    learn = LEGACY.get(algorithm, algorithm)
    phases = [Phase(BC, bc_steps, 0)] if bc_steps else []
    if steps > bc_steps:
        phases.append(Phase(learn, steps - bc_steps, bc_steps))
    return phases


def build_schedule(cfg: Any) -> list[Phase]:
    """A config's phases (from ``algorithm``, ``bc_steps`` and ``steps``)."""
    return resolve_schedule(cfg.algorithm, bc_steps=cfg.bc_steps, steps=cfg.steps)


def phase_at(phases: Sequence[Phase], step: int) -> Phase:
    """The phase that runs step ``step`` (0-based); the last one past the end."""
    for phase in phases:
        if step < phase.end:
            return phase
    return phases[-1]


def _entry(item: Any) -> tuple[str, int]:
    if isinstance(item, Mapping) and len(item) == 1:
        [(name, steps)] = item.items()
    elif isinstance(item, str) and ":" in item:  # "bc:4" on a command line
        name, _, steps = item.partition(":")
    else:
        raise ConfigError(f"a phase is one name and its steps ({{bc: 4}} or 'bc:4'), "
                          f"not {item!r}")
    try:
        count = int(steps)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"phase {name!r}: steps must be an integer, got {steps!r}") from e
    if count < 1:
        raise ConfigError(f"phase {name!r}: steps must be at least 1, got {count}")
    return str(name).strip(), count


def resolve_phases(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a flat config mapping) with ``phases`` turned into algorithm, bc_steps, steps.

    Refused: a phase list other than an optional ``bc`` then one learning phase, and keys that
    contradict it (``steps: 10`` beside phases of 12 steps).
    """
    raw = data.get("phases")
    if not raw:
        return data
    if isinstance(raw, (str, Mapping)) or not isinstance(raw, Sequence):
        raw = [raw]
    entries = [_entry(item) for item in raw]
    names = [name for name, _ in entries]
    learn = [name for name in names if name != BC]
    if len(learn) > 1 or names[0] != BC and len(entries) > 1 or names.count(BC) > 1:
        raise ConfigError(f"phases must be an optional bc phase then one learning phase "
                          f"(e.g. [{{bc: 4}}, {{grpo: 8}}]), not {names}")
    bc_steps = entries[0][1] if names[0] == BC else 0
    derived = {"algorithm": learn[0] if learn else "bc_grpo", "bc_steps": bc_steps,
               "steps": sum(steps for _, steps in entries)}
    for key, value in derived.items():
        given = data.get(key)
        same = given == value or key == "algorithm" and LEGACY.get(str(given)) == value
        if given is not None and not same:
            raise ConfigError(f"{key}: {given!r} contradicts phases {names} ({key} {value!r})")
    return {**data, **derived, "phases": [{name: steps} for name, steps in entries]}


__all__ = ["BC", "EXPERT_ALGORITHMS", "LEGACY", "SEMI_ONLINE", "Phase", "build_schedule",
           "phase_at", "resolve_phases", "resolve_schedule"]
