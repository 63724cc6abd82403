"""Infrastructure faults: a killed X server or app aborts the episode; the next one runs; nothing
is left behind."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

import agentgym
from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig
from agentgym.sandboxes._desktop_reaper import pids_with_label
from agentgym.sandboxes.desktop import STATE_DIR

from .gui_helpers import needs_desktop, run_expert

pytestmark = [pytest.mark.xvfb, needs_desktop]


def test_x_server_killed_mid_episode_aborts_then_the_next_episode_runs(gui_env):
    env = gui_env.unwrapped
    env.reset(options={"task_id": "form-02"})
    old = env.desktop
    os.kill(old._core[0].pid, signal.SIGKILL)
    old._core[0].wait(timeout=10)
    obs, reward, terminated, truncated, info = env.step('{"action_type": "CLICK", "x": 5, "y": 5}')
    assert info["aborted"] is True and truncated and not terminated and reward == 0.0
    assert "X server, window manager or VNC server died" in info["abort_reason"]
    reward, info = run_expert(gui_env, "form-02")
    assert reward == 1.0, info
    assert env.desktop is not old and env.desktop.alive()
    assert pids_with_label(old.label) == []


def test_window_manager_killed_aborts_and_the_desktop_is_rebuilt(gui_env):
    """Without a WM windows lose focus handling: not the model's failure, and not kept."""
    env = gui_env.unwrapped
    env.reset(options={"task_id": "form-02"})
    old = env.desktop
    wm = old._core[1]
    os.kill(wm.pid, signal.SIGKILL)
    wm.wait(timeout=10)
    _, _, _, truncated, info = env.step("WAIT")
    assert truncated and info["aborted"] and "window manager" in info["abort_reason"]
    reward, info = run_expert(gui_env, "form-02")
    assert reward == 1.0, info
    assert env.desktop is not old and pids_with_label(old.label) == []


def test_app_killed_mid_episode_aborts(gui_env):
    env = gui_env.unwrapped
    env.reset(options={"task_id": "settings-03"})
    app = env.desktop.apps[0]
    os.kill(app.pid, signal.SIGKILL)
    app.wait(timeout=10)
    _, _, _, truncated, info = env.step("WAIT")
    assert truncated and info["aborted"] and "app was killed" in info["abort_reason"]
    reward, _ = run_expert(gui_env, "settings-03")
    assert reward == 1.0


def _my_desktops() -> list[str]:
    labels = []
    for path in STATE_DIR.glob("*.json"):
        state = json.loads(path.read_text())
        if state["owner"] == os.getpid():
            labels.append(state["label"])
    return labels


@pytest.mark.slow
def test_the_engine_records_a_killed_desktop_as_aborted_and_runs_the_next_episode():
    killed: list[int] = []
    seen: list[str] = []
    others = set(_my_desktops())  # the module's gui_env fixture may hold one

    def respond(messages: list[dict[str, Any]], episode: Any) -> str:
        if not killed:
            for label in set(_my_desktops()) - others:
                seen.append(label)
                for pid in pids_with_label(label):
                    with contextlib.suppress(OSError):  # short-lived helpers come and go
                        if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"Xvfb"):
                            os.kill(pid, signal.SIGKILL)
                            killed.append(pid)
            return '{"action_type": "CLICK", "x": 5, "y": 5}'
        return "DONE"

    engine = Engine("gui/desktop-v0", FakePolicy(respond), num_envs=1,
                    env_kwargs={"split": "test"}, config=RolloutConfig(max_turns=4))
    try:
        first, second = engine.run([EpisodeRequest(task_id="form-01"),
                                    EpisodeRequest(task_id="todo-add-1")])
    finally:
        engine.close()
    assert killed
    assert first.aborted and first.reason.startswith("infrastructure:")
    assert second.terminated and not second.aborted and second.reward == 0.0
    deadline = time.monotonic() + 15  # the engine closes replaced envs in the background
    while set(_my_desktops()) - others and time.monotonic() < deadline:
        time.sleep(0.1)
    assert set(_my_desktops()) - others == set()
    assert all(pids_with_label(label) == [] for label in seen)


def test_close_leaves_no_process_and_no_folder():
    env = agentgym.make("gui/desktop-v0", split="test")
    env.reset(options={"task_id": "xterm-1"})
    desktop = env.unwrapped.desktop
    assert len(pids_with_label(desktop.label)) >= 3
    env.close()
    assert pids_with_label(desktop.label) == [] and not desktop.root.exists()
