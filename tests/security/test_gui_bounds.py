"""Resource attacks on the GUI desktop (issue 23): steps that never end, app launches and
processes without bound. Observables: the step's error observation, counts of processes."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agentgym
from agentgym.sandboxes._desktop_jail import app_python
from agentgym.sandboxes._desktop_reaper import pids_with_label
from agentgym.sandboxes.desktop import DesktopConfig, DesktopSandbox, desktop_available

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.skipif(not desktop_available() or shutil.which("bwrap") is None,
                       reason="needs Xvfb, xdotool and bubblewrap"),
]


@pytest.fixture(scope="module")
def env() -> Iterator[Any]:
    """A desktop env whose steps have a 2 s budget."""
    env = agentgym.make("gui/desktop-v0", split="train", step_budget_s=2.0)
    yield env
    env.close()


def _commands(desktop: DesktopSandbox, name: str) -> int:
    count = 0
    for pid in pids_with_label(desktop.label):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == name:
                count += 1
        except OSError:
            continue
    return count


def test_twenty_waits_are_cut_at_the_step_budget(env):
    """One step of 20 x WAIT (5 s each) ran 100 s."""
    env.reset(options={"task_id": "form-00"})
    t0 = time.monotonic()
    _, _, terminated, truncated, info = env.step(
        "[" + ", ".join(['{"action_type": "WAIT", "seconds": 5}'] * 20) + "]")
    assert not (terminated or truncated)
    assert "time budget of 2 s was used up" in info["error"], info
    assert time.monotonic() - t0 < 60  # loose: uncut, the step takes 100 s


def test_long_typing_is_cut_at_the_step_budget(env):
    """20 x 2,000 typed characters (minutes of xdotool) stop at the budget."""
    env.reset(options={"task_id": "form-00"})
    text = "x" * 2000
    _, _, _, _, info = env.step(
        "[" + ", ".join([f'{{"action_type": "TYPING", "text": "{text}"}}'] * 20) + "]")
    assert "time budget" in info["error"], info


def test_open_app_is_capped_per_episode():
    """100 ``open_app`` calls left 100 xterms running (an env with default settings)."""
    env = agentgym.make("gui/desktop-v0", split="train")
    try:
        env.reset(options={"task_id": "form-00"})
        desktop = env.unwrapped.desktop
        errors = []
        for _ in range(5):
            _, _, _, _, info = env.step(
                "[" + ", ".join(['{"action_type": "open_app", "app_name": "xterm"}'] * 20) + "]")
            errors.append(info.get("error", ""))
        assert any("open_app refused" in e for e in errors), errors
        assert _commands(desktop, "xterm") <= 4  # MAX_OPEN_APPS
    finally:
        env.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="the process cap needs a per-desktop uid (root)")
def test_a_fork_flood_stops_at_the_desktops_process_cap():
    """An app on the desktop forking 300 times: the desktop's uid holds at most its cap."""
    with DesktopSandbox(DesktopConfig(max_processes=64)) as desktop:
        desktop.launch([app_python(), "-c", FLOOD])
        deadline = time.monotonic() + 60
        while not (desktop.home / "done").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (desktop.home / "done").exists()
        assert 0 < _commands(desktop, Path(app_python()).name) < 64


FLOOD = """
import os, time
for _ in range(300):
    try:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    except OSError:
        pass
open(os.path.join(os.environ["HOME"], "done"), "w").close()
time.sleep(60)
"""


def test_one_huge_file_stops_at_the_desktops_file_size_cap():
    """``head -c 5M /dev/zero > ~/big`` in a terminal: the file stops at the cap (1 MiB here)."""
    with DesktopSandbox(DesktopConfig(max_file_bytes=1024 * 1024)) as desktop:
        result = desktop.run(["sh", "-c", 'head -c 5000000 /dev/zero > "$HOME/big"'])
        assert not result.ok
        assert (desktop.home / "big").stat().st_size <= 1024 * 1024
