"""Registers ``miniwob/<task>-v0`` for every MiniWoB++ page (called from envs/plugin.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .tasks import KNOWN_BROKEN, TASK_NAMES, load_tasks

MAX_TURNS = 15


def register_miniwob(register: Callable[..., Any]) -> None:
    """``register(id, entry_point, **fields)`` once per task; broken tasks say so."""
    for name in TASK_NAMES:
        note = f" Known not to work: {KNOWN_BROKEN[name]}." if name in KNOWN_BROKEN else ""
        register(
            f"miniwob/{name}-v0",
            "agentgym.envs.web.miniwob.env:MiniWoBEnv",
            kwargs={"task": name},
            family="web",
            max_turns=MAX_TURNS,
            tasks=functools.partial(load_tasks, name),
            description=f"MiniWoB++ {name} in a real Chromium; reward from the page.{note}",
        )


__all__ = ["MAX_TURNS", "register_miniwob"]
