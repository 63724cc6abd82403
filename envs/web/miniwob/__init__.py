"""MiniWoB++ on the agentgym browser layer: ``miniwob/<task>-v0`` for every page in ``miniwob``.

See docs/web.md for the split, the reward modes, the experts and the tasks known not to work.
"""

from __future__ import annotations

from .env import REWARD_MODES, MiniWoBEnv
from .experts import EXPERTS
from .tasks import KNOWN_BROKEN, TASK_NAMES, TEST_SEEDS, TRAIN_SEEDS, load_tasks

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
