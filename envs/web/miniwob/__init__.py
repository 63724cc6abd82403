"""MiniWoB++ on the agentgym browser layer: ``miniwob/<task>-v0`` for every page in ``miniwob``.

See docs/web.md for the split, the reward modes, the experts and the tasks known not to work.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "EXPERTS": ".experts",
    "KNOWN_BROKEN": ".tasks",
    "MiniWoBEnv": ".env",
    "REWARD_MODES": ".env",
    "TASK_NAMES": ".tasks",
    "TEST_SEEDS": ".tasks",
    "TRAIN_SEEDS": ".tasks",
    "load_tasks": ".tasks",
}
"""Public name -> the submodule defining it."""

__all__ = [
    "EXPERTS",
    "KNOWN_BROKEN",
    "REWARD_MODES",
    "TASK_NAMES",
    "TEST_SEEDS",
    "TRAIN_SEEDS",
    "MiniWoBEnv",
    "load_tasks",
]


def __getattr__(name: str) -> Any:
    """Import the names of ``__all__`` on first use (listing the envs imports none of them)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
