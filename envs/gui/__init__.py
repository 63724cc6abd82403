"""GUI family: computer-use tasks on virtual desktops (Xvfb + openbox, or any VNC server).

- :mod:`.actions`, :mod:`.pyautogui_ast`, :mod:`.android`, :mod:`.parse`: OSWorld computer_13
  JSON, pyautogui code (parsed, never run) and AndroidWorld / UI-S1 JSON, all translated to one
  list of :class:`Primitive`;
- :mod:`.backends`: the local (xdotool + mss) and VNC (vncdotool) control backends;
- :mod:`.tasks`, :mod:`.evaluators`, :mod:`.expert`: 47 bundled tasks with state-checked
  evaluators and a scripted expert each;
- :mod:`.env`: ``gui/desktop-v0`` (:class:`DesktopEnv`).
"""

from __future__ import annotations

import importlib
from typing import Any

from .actions import ActionError, Primitive, normalize_key, parse_computer13
from .android import parse_android
from .parse import ACTION_SPACES, parse_action
from .pyautogui_ast import parse_pyautogui

_LAZY = {"VNCBackend": ".backends", "png_bytes": ".backends"}
"""Names whose module needs the ``gui`` extra (Pillow), imported on first use."""

__all__ = [
    "ACTION_SPACES",
    "ActionError",
    "Primitive",
    "VNCBackend",
    "normalize_key",
    "parse_action",
    "parse_android",
    "parse_computer13",
    "parse_pyautogui",
    "png_bytes",
]


def __getattr__(name: str) -> Any:
    """Import the control backends (Pillow) on first use."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
