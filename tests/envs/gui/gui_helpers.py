"""Helpers shared by the GUI env tests."""

from __future__ import annotations

from typing import Any

import pytest

from agentgym.sandboxes.desktop import desktop_available

needs_desktop = pytest.mark.skipif(not desktop_available(), reason="needs Xvfb and xdotool")


def run_expert(env: Any, task_id: str) -> tuple[float, dict[str, Any]]:
    """Reset to ``task_id`` and play the scripted expert; return the reward and last info."""
    env.reset(options={"task_id": task_id})
    reward, info = 0.0, {}
    for action in env.unwrapped.expert_actions(env.unwrapped.task):
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return float(reward), info
