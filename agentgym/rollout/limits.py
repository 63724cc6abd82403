"""The run's turn limit, as the rollout package exports it: see :mod:`agentgym.settings`.

:func:`resolve_max_turns` (what was asked, else the env spec's, else :data:`DEFAULT_MAX_TURNS`)
is the one function that decides it; :func:`agentgym.make`'s :class:`~agentgym.TurnLimit`
wrapper is the one place that enforces it. The engine passes ``RolloutConfig.max_turns`` to
``make`` and counts nothing itself.
"""

from __future__ import annotations

from ..settings import DEFAULT_MAX_TURNS, resolve_max_turns

__all__ = ["DEFAULT_MAX_TURNS", "resolve_max_turns"]
