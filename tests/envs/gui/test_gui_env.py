"""gui/desktop-v0 against a real desktop: experts, observations, coordinates, bad input."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

import agentgym
from agentgym.envs.gui.tasks import GROUPS, load_task_set, task_records
from agentgym.testing import malformed_actions

from .gui_helpers import needs_desktop, run_expert

pytestmark = [pytest.mark.xvfb, needs_desktop]


def test_task_set_has_40_plus_tasks_in_two_disjoint_splits():
    tasks = load_task_set()
    assert len(tasks) >= 40
    splits = tasks.splits
    assert splits["train"] >= 30 and splits["test"] >= 10
    apps = {r["app"] for r in task_records() if r["split"] == "test"}
    assert apps == {"form", "todo", "settings", "mousepad", "xterm", "gnumeric"}
    assert len(GROUPS) == 7


SLOW = pytest.mark.slow


@pytest.mark.parametrize("task_id", [
    "form-00", "todo-add2-0", "settings-02", pytest.param("todo-done-0", marks=SLOW),
    pytest.param("todo-delete-2", marks=SLOW), pytest.param("xterm-0", marks=SLOW),
    pytest.param("mousepad-0", marks=SLOW), pytest.param("infeasible-0", marks=SLOW),
    pytest.param("gnumeric-0", marks=SLOW),
])
def test_expert_solves_each_kind_of_task(gui_env, task_id):
    reward, info = run_expert(gui_env, task_id)
    assert reward == 1.0, info.get("evaluation")
    assert info["success"] is True


def test_wrong_answers_score_zero(gui_env):
    gui_env.reset(options={"task_id": "form-00"})
    _, reward, terminated, _, info = gui_env.step("DONE")
    assert terminated and reward == 0.0 and info["evaluation"]["result"] is None
    gui_env.reset(options={"task_id": "todo-add-0"})
    _, reward, terminated, _, _ = gui_env.step("FAIL")
    assert terminated and reward == 0.0
    gui_env.reset(options={"task_id": "infeasible-0"})
    _, reward, terminated, _, _ = gui_env.step("DONE")
    assert terminated and reward == 0.0


def test_observation_has_screenshot_cursor_windows_and_widgets(gui_env):
    obs, info = gui_env.reset(options={"task_id": "form-03"})
    image = Image.open(io.BytesIO(obs["images"][0]))
    assert image.format == "PNG" and image.size == (1280, 720)
    text = obs["text"]
    assert text.startswith("Task: Fill in the registration form")
    assert "cursor at (640, 360)" in text
    assert "'Registration Form'" in text and "entry 'email'" in text
    obs, _, _, _, info = gui_env.step('{"action_type": "MOVE_TO", "x": 100, "y": 50}')
    assert "cursor at (100, 50)" in obs["text"] and "error" not in info
    _, _, _, _, info = gui_env.step('{"action_type": "CLICK", "x": 101, "y": 51}')
    assert info["clicks"] == [(101, 51)]


@pytest.mark.slow
def test_scaled_screenshots_map_coordinates_back():
    env = agentgym.make("gui/desktop-v0", split="train", screenshot_size=(640, 360))
    try:
        obs, _ = env.reset(options={"task_id": "form-04"})
        assert Image.open(io.BytesIO(obs["images"][0])).size == (640, 360)
        assert "cursor at (320, 180)" in obs["text"]
        reward, info = run_expert(env, "form-04")
        assert reward == 1.0, info.get("evaluation")
        env.reset(options={"task_id": "form-04"})
        obs, _, _, _, info = env.step("pyautogui.click(700, 10)")
        assert "outside the 640x360 screenshot" in info["error"]
    finally:
        env.close()


def test_a_thousand_malformed_and_hostile_actions(gui_env, tmp_path: Path):
    canary = tmp_path / "canary"
    hostile = [
        f"```python\nopen({str(canary)!r}, 'w').write('x')\n```",
        f"```python\n__import__('os').system('touch {canary}')\n```",
        f"```python\npyautogui.write(__import__('os').system('touch {canary}'))\n```",
        f"```python\nexec(\"open({str(canary)!r}, 'w')\")\n```",
        '{"action_type": "CLICK", "x": -5, "y": 10}',
        '{"action_type": "click", "x": 99999, "y": 10}',
        '[' + ','.join(['{"action_type": "WAIT"}'] * 50) + ']',
        '{"action_type": "open_app", "app_name": "/bin/sh"}',
    ]
    env = gui_env.unwrapped  # no turn limit: the 1,000 actions go to one or a few episodes
    env.reset(options={"task_id": "todo-add-0"})
    before = gui_env.unwrapped.app_state()["values"]
    errors = 0
    names = gui_env.unwrapped.tools.names()
    actions = list(malformed_actions(1000 - 8 * 25, seed=3, tool_names=names)) + hostile * 25
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(obs["text"], str) and obs["text"]
        assert not info.get("aborted"), info.get("abort_reason")
        errors += "error" in info
        if terminated or truncated:
            env.reset(options={"task_id": "todo-add-0"})
    assert not canary.exists(), "model-written code must never run as host Python"
    assert errors > 900
    after = gui_env.unwrapped.app_state()["values"]
    assert after == before
