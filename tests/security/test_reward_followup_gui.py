"""Python typed into the task's terminal must not make the episode unscored (issue 24, follow-up).

``check_rewards``'s fault probe types ``import os, signal`` (a Python line) into the xterm of
``gui/desktop-v0``. In a shell that starts ImageMagick's ``import``, which grabs the pointer to
let the user pick a window; the next typing then hung until the backend's timeout and the
episode ended as ``aborted`` (every probe episode on seed 0): a self-inflicted fault became an
unscored episode. The jail no longer offers ``import`` (by name or by path). Observables: the
episode is not aborted and the step after the Python line runs (a marker file it writes).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from security.gui_attack import type_line, wait_path

import agentgym
from agentgym.sandboxes.desktop import desktop_available
from agentgym.testing import PROBE_KINDS, check_rewards

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.skipif(not desktop_available() or shutil.which("bwrap") is None
                       or shutil.which("import") is None,
                       reason="needs Xvfb, xdotool, bubblewrap and ImageMagick's import"),
]


WATCHDOG_S = 180.0
"""Far beyond two steps on a loaded machine; reached only when the desktop froze."""


@pytest.fixture(scope="module")
def env() -> Iterator[Any]:
    """One ``gui/desktop-v0`` for the module."""
    env = agentgym.make("gui/desktop-v0", split="train")
    yield env
    env.close()


@pytest.mark.parametrize("line", ["import os, signal", "/usr/bin/import ~/shot.png",
                                  "import-im6.q16 ~/shot.png"])
def test_python_typed_into_the_shell_does_not_abort_the_episode(env, line: str) -> None:
    """Before, the step after the line hung in the screenshot (a server grab) for good: a
    watchdog closes the desktop's apps after a generous deadline so the test fails, not hangs."""
    env.reset(options={"task_id": "xterm-0"})
    desktop = env.unwrapped.desktop
    fired = threading.Event()

    def unfreeze() -> None:
        fired.set()
        desktop.kill_apps()

    watchdog = threading.Timer(WATCHDOG_S, unfreeze)
    watchdog.start()
    try:
        _, _, terminated, truncated, info = type_line(env, line)
        assert not info.get("aborted"), info
        _, _, terminated, truncated, info = type_line(env, "touch ~/after.txt")
    finally:
        watchdog.cancel()
    assert not fired.is_set(), "the desktop froze until its apps were killed"
    assert not info.get("aborted"), info
    assert not (terminated or truncated)
    assert wait_path(desktop.home / "after.txt")
    assert not (desktop.home / "shot.png").exists()


@pytest.mark.slow
def test_the_fault_probe_no_longer_aborts_desktop_episodes() -> None:
    """The probe that found it: its fault class on seed 0 (a minute or more)."""
    result = check_rewards("gui/desktop-v0", seeds=1, cheap=True,
                           skip={k: "this test runs the fault probe" for k in PROBE_KINDS
                                 if k != "fault"})
    probe = next(p for p in result.probes if p.kind == "fault")
    assert probe.aborted == 0.0, result
    result.raise_for_failures()
