"""AndroidWorld / UI-S1 actions translate to the right adb commands; the emulator test runs only
where KVM, adb and a booted emulator exist."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentgym_android.adb import adb_commands, escape_text  # noqa: E402

from agentgym.envs.gui import ActionError  # noqa: E402

SIZE = (1080, 2400)


@pytest.mark.parametrize("action, expected", [
    ({"action_type": "click", "x": 10, "y": 20}, [["input", "tap", "10", "20"]]),
    ({"action_type": "double_tap", "x": 1, "y": 2}, [["input", "tap", "1", "2"]] * 2),
    ({"action_type": "long_press", "x": 5, "y": 6},
     [["input", "swipe", "5", "6", "5", "6", "1000"]]),
    ({"action": "long_press", "coordinate": [5, 6], "time": 2},
     [["input", "swipe", "5", "6", "5", "6", "2000"]]),
    ({"action": "swipe", "coordinate": [100, 2000], "coordinate2": [100, 500]},
     [["input", "swipe", "100", "2000", "100", "500", "300"]]),
    ({"action_type": "scroll", "direction": "down"},
     [["input", "swipe", "540", "1200", "540", "400", "300"]]),
    ({"action_type": "input_text", "text": "hi there & more"},
     [["input", "text", "hi%sthere%s\\&%smore"]]),
    ({"action_type": "keyboard_enter"}, [["input", "keyevent", "KEYCODE_ENTER"]]),
    ({"action_type": "navigate_back"}, [["input", "keyevent", "KEYCODE_BACK"]]),
    ({"action_type": "navigate_home"}, [["input", "keyevent", "KEYCODE_HOME"]]),
    ({"action": "system_button", "button": "Back"}, [["input", "keyevent", "KEYCODE_BACK"]]),
    ({"action_type": "open_app", "app_name": "Settings"},
     [["monkey", "-p", "com.android.settings", "-c", "android.intent.category.LAUNCHER", "1"]]),
    ({"action_type": "wait"}, []),
    ({"action_type": "status", "goal_status": "complete"}, []),
])
def test_translation(action, expected):
    assert adb_commands(action, SIZE) == expected


@pytest.mark.parametrize("action", [
    {"action_type": "click", "x": 5000, "y": 1}, {"action_type": "open_app", "app_name": "doom"},
    {"action_type": "input_text", "text": "a\nb"}, {"action_type": "click"}, {"oops": 1},
])
def test_bad_actions_are_refused(action):
    with pytest.raises(ActionError):
        adb_commands(action, SIZE)


def test_text_escaping_keeps_the_shell_out():
    assert escape_text("$(reboot); `id`") == "\\$\\(reboot\\)\\;%s\\`id\\`"


def _emulator_ready() -> str:
    if not os.path.exists("/dev/kvm"):
        return "no /dev/kvm: an Android emulator needs KVM"
    if shutil.which("adb") is None:
        return "adb is not installed"
    out = subprocess.run(["adb", "devices"], capture_output=True, text=True).stdout
    if "emulator-" not in out:
        return "no running emulator (see docs/gui.md)"
    return ""


@pytest.mark.skipif(bool(_emulator_ready()), reason=_emulator_ready() or "ready")
def test_expert_opens_settings_on_the_emulator():
    from agentgym_android.env import AndroidEnv

    env = AndroidEnv(split="test")
    env.reset(options={"task_id": "open-settings"})
    reward = 0.0
    for action in env.expert_actions(env.task) or []:
        _, reward, terminated, _, _ = env.step(action)
        if terminated:
            break
    env.close()
    assert reward == 1.0
