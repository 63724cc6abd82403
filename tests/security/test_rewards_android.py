"""Reward review of the Android plugin, on a fake adb device that keeps state like a phone:
state left by an earlier episode or an app in the background must not score."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "plugins" / "agentgym-android"))

import agentgym_android.env as android_env  # noqa: E402

from agentgym.errors import InfrastructureError  # noqa: E402
from agentgym.testing import check_rewards  # noqa: E402

LAUNCHER = "com.google.android.apps.nexuslauncher"
COMPLETE = json.dumps({"action_type": "status", "goal_status": "complete"})


class FakeDevice:
    """An emulator's state as adb shows it: settings, running apps, the focused one."""

    def __init__(self, serial: str = "emulator-5554") -> None:
        self.serial = serial
        self.settings = {("global", "airplane_mode_on"): "0",
                         ("system", "screen_brightness"): "102"}
        self.running = [LAUNCHER]
        self.focused = LAUNCHER
        self.frozen = False  # True: `settings put` is ignored (a broken device)

    def shell(self, argv: list[str]) -> str:
        if argv[:2] == ["input", "keyevent"]:
            if argv[2] == "KEYCODE_HOME":
                self.focused = LAUNCHER
            return ""
        if argv[:2] == ["settings", "get"]:
            return self.settings.get((argv[2], argv[3]), "null") + "\n"
        if argv[:2] == ["settings", "put"]:
            if not self.frozen:
                self.settings[(argv[2], argv[3])] = argv[4]
            return ""
        if argv[:2] == ["am", "force-stop"]:
            self.running = [p for p in self.running if p != argv[2]]
            if self.focused == argv[2]:
                self.focused = LAUNCHER
            return ""
        if argv[0] == "monkey":
            self.running.append(argv[2])
            self.focused = argv[2]
            return ""
        if argv[:2] == ["dumpsys", "window"]:
            windows = "".join(f"  Window #{i} Window{{1a2b u0 {p}/{p}.Main}}:\n"
                              for i, p in enumerate(self.running))
            return (f"WINDOW MANAGER WINDOWS (dumpsys window windows)\n{windows}"
                    f"  mCurrentFocus=Window{{1a2b u0 {self.focused}/{self.focused}.Main}}\n"
                    f"  mFocusedApp=ActivityRecord{{3c4d u0 {self.focused}/.Main t12}}\n")
        if argv[:2] == ["input", "tap"] or argv[:2] == ["input", "swipe"]:
            return ""
        if argv[:2] == ["input", "text"]:
            return ""
        raise AssertionError(f"unexpected adb shell {argv}")

    def screenshot_png(self) -> bytes:
        return b"\x89PNG\r\n\x1a\n"

    def size(self) -> tuple[int, int]:
        return (1080, 2400)

    def online(self) -> bool:
        return True


@pytest.fixture
def make_env(monkeypatch):
    monkeypatch.setattr(android_env, "AdbDevice", FakeDevice)
    monkeypatch.setattr(android_env.time, "sleep", lambda s: None)

    def make(split: str = "train"):
        return android_env.AndroidEnv(split=split)

    return make


def test_state_left_by_an_earlier_episode_does_not_score(make_env):
    env = make_env()
    env.device.settings[("global", "airplane_mode_on")] = "1"  # an earlier episode's work
    env.reset(options={"task_id": "airplane-on"})
    _, reward, terminated, _, _ = env.step(COMPLETE)
    assert terminated and reward == 0.0


def test_brightness_left_at_max_does_not_score(make_env):
    env = make_env()
    env.device.settings[("system", "screen_brightness")] = "255"
    env.reset(options={"task_id": "brightness-max"})
    _, reward, *_ = env.step(COMPLETE)
    assert reward == 0.0


def test_settings_in_the_background_is_not_settings_open(make_env):
    env = make_env("test")
    env.reset(options={"task_id": "open-settings"})
    env.step(json.dumps({"action_type": "open_app", "app_name": "settings"}))
    env.step(json.dumps({"action_type": "navigate_home"}))
    assert "com.android.settings" in env.device.shell(["dumpsys", "window"])
    _, reward, *_ = env.step(COMPLETE)
    assert reward == 0.0


def test_settings_left_open_by_an_earlier_episode_does_not_score(make_env):
    env = make_env("test")
    env.device.shell(["monkey", "-p", "com.android.settings"])
    env.reset(options={"task_id": "open-settings"})
    _, reward, *_ = env.step(COMPLETE)
    assert reward == 0.0


def test_the_expert_still_scores(make_env):
    env = make_env("test")
    env.reset(options={"task_id": "open-settings"})
    for action in env.expert_actions(env.task):
        _, reward, terminated, _, _ = env.step(action)
    assert terminated and reward == 1.0


@pytest.mark.parametrize("task_id, action", [
    ("airplane-on", ["settings", "put", "global", "airplane_mode_on", "1"]),
    ("brightness-max", ["settings", "put", "system", "screen_brightness", "255"]),
])
def test_doing_the_task_scores(make_env, task_id, action):
    env = make_env()
    env.reset(options={"task_id": task_id})
    env.device.shell(action)  # what the agent's taps would do
    _, reward, *_ = env.step(COMPLETE)
    assert reward == 1.0


def test_a_start_state_that_cannot_be_set_aborts(make_env):
    env = make_env()
    env.device.settings[("global", "airplane_mode_on")] = "1"
    env.device.frozen = True
    with pytest.raises(InfrastructureError, match="start state"):
        env.reset(options={"task_id": "airplane-on"})


def test_check_rewards_passes_on_the_fake_device(make_env):
    for split in ("train", "test"):
        result = check_rewards(make_env(split), seeds=3)
        assert result.passed, str(result)


def test_focus_is_read_from_the_focus_line():
    out = FakeDevice().shell(["dumpsys", "window"])
    assert re.search(r"mCurrentFocus=.*nexuslauncher", out)
