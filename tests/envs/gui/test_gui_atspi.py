"""GTK apps' widget trees over the desktop's private AT-SPI bus, in the text observation."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest

from agentgym.envs.gui.atspi import A11yNode, accessibility_tree, render_accessibility
from agentgym.sandboxes import _desktop_reaper as reaper
from agentgym.sandboxes._desktop_a11y import a11y_parts
from agentgym.sandboxes.desktop import DesktopConfig, DesktopSandbox

from .gui_helpers import needs_desktop

needs_a11y = pytest.mark.skipif(a11y_parts() is None, reason="needs dbus-daemon and at-spi2-core")


def test_rendering_skips_layout_and_scales_centres() -> None:
    nodes = [A11yNode("frame", "Editor", (0, 0, 200, 100)),
             A11yNode("filler", "", (0, 0, 200, 100)),
             A11yNode("text", "", (10, 20, 100, 40), text="hello"),
             A11yNode("table", "Sheet1", (0, 0, 50, 50), children=10**6)]
    text = render_accessibility(nodes, (0.5, 0.5))
    assert text.splitlines() == [
        "Accessibility tree (AT-SPI):",
        "- frame 'Editor' at (50, 25)",
        "- text '' text='hello' at (30, 20)",
        "- table 'Sheet1' at (12, 12) (1000000 children)",
    ]
    assert render_accessibility([A11yNode("filler", "", None)], (1, 1)) == ""


def _text_line(obs: dict[str, Any]) -> str:
    lines = obs["text"].splitlines()
    assert "Accessibility tree (AT-SPI):" in lines, obs["text"]
    return next(line for line in lines if line.startswith("- text "))


@pytest.mark.xvfb
@needs_desktop
@needs_a11y
def test_mousepad_tree_shows_the_text_being_edited(gui_env: Any) -> None:
    obs, _ = gui_env.reset(options={"task_id": "mousepad-0"})
    assert "Shopping list" in _text_line(obs)
    assert "- menu 'File' at (" in obs["text"]
    obs, *_ = gui_env.step('```python\npyautogui.write("zq7")\n```')
    assert "zq7" in _text_line(obs)
    obs, _ = gui_env.reset(options={"task_id": "form-00"})  # a Tk app: its own widget dump
    assert "Widgets of 'Registration Form'" in obs["text"]
    assert "Accessibility tree" not in obs["text"]


@pytest.mark.xvfb
@needs_desktop
@needs_a11y
def test_bus_parts_are_per_desktop_and_go_with_it() -> None:
    with DesktopSandbox(DesktopConfig(width=320, height=240)) as plain:
        assert plain.a11y_address is None and plain.environ()["NO_AT_BRIDGE"] == "1"
    desktop = DesktopSandbox(DesktopConfig(width=320, height=240, accessibility=True))
    try:
        address = desktop.a11y_address
        assert address and address == f"unix:path={desktop.jail.bus / 'a11y-bus'}"
        assert "NO_AT_BRIDGE" not in desktop.environ()
        assert accessibility_tree(address) == []  # no app yet
        daemon = desktop._core[2]  # Xvfb, openbox, then the bus and its registry
        os.kill(daemon.pid, signal.SIGKILL)
        daemon.wait()
        t0 = time.monotonic()
        assert accessibility_tree(address) == []  # a dead bus: nothing, quickly, no exception
        assert time.monotonic() - t0 < 5.0  # no hang on the dead bus
        assert desktop.alive()  # the desktop itself is fine
    finally:
        desktop.close()
    assert reaper.pids_with_label(desktop.label) == []
