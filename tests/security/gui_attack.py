"""Helpers of the GUI attack tests: drive a desktop env as a hostile policy would."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agentgym.envs.gui.screen import window_list


def type_line(env: Any, command: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
    """Type ``command`` and Enter into the focused window (the task's terminal)."""
    return env.step(f"```python\npyautogui.write({command!r})\npyautogui.press('enter')\n```")


def wait_path(path: Path, timeout_s: float = 60.0) -> bool:
    """Wait until ``path`` exists (a marker the typed command writes last)."""
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def windows(env: Any) -> list[str]:
    """Names of the desktop's visible top-level windows."""
    return [w["name"] for w in window_list(env.unwrapped.desktop.display)]


def wait_windows(env: Any, count: int, timeout_s: float = 30.0) -> list[str]:
    """The window names once there are at least ``count`` (or whatever is there at the end)."""
    deadline = time.monotonic() + timeout_s
    names = windows(env)
    while len(names) < count and time.monotonic() < deadline:
        time.sleep(0.1)
        names = windows(env)
    return names


def play_until_end(env: Any, action: str = "WAIT", turns: int = 10
                   ) -> tuple[float, bool, bool, dict[str, Any]]:
    """Step ``action`` until the episode ends; return reward, terminated, truncated, info."""
    reward, terminated, truncated, info = 0.0, False, False, {}
    for _ in range(turns):
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return float(reward), terminated, truncated, info


def forged_state(values: Any) -> str:
    """A Tk app state dump claiming the form was submitted with ``values``."""
    return json.dumps({"submitted": values, "values": values, "widgets": []})
