"""The one owner of a run's turn limit: what was asked, else the env spec's, else a default.

``agentgym eval --max-turns``, the trainer's ``max_turns`` and anything else that runs episodes
resolve the limit here and pass it both to :func:`agentgym.make` (whose
:class:`~agentgym.TurnLimit` wrapper it raises or lowers) and to the engine's
:class:`~agentgym.rollout.RolloutConfig`.

>>> resolve_max_turns(None, 6), resolve_max_turns(3, 6), resolve_max_turns(20, 6)
(6, 3, 20)
>>> resolve_max_turns(0, None) == DEFAULT_MAX_TURNS
True
"""

from __future__ import annotations

from ..errors import ConfigError

DEFAULT_MAX_TURNS = 10
"""Turn limit of an env whose spec sets none, when the run does not ask for one."""


def resolve_max_turns(asked: int | None, spec_limit: int | None) -> int:
    """``asked`` when set (``None`` or 0 mean unset), else ``spec_limit``, else the default.

    Raises :class:`~agentgym.errors.ConfigError` for a negative limit.
    """
    if asked is not None and asked < 0:
        raise ConfigError(f"max_turns must be at least 1, got {asked}")
    return asked or spec_limit or DEFAULT_MAX_TURNS


__all__ = ["DEFAULT_MAX_TURNS", "resolve_max_turns"]
