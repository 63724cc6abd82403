"""GUI episodes in the trajectory viewer: clicks are marked on the screenshot they aimed at."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from agentgym.envs.gui.backends import png_bytes
from agentgym.envs.gui.viewer import mark_clicks, turn_points, write_gui_viewer
from agentgym.rollout.trajectory import Trajectory


def _traj() -> Trajectory:
    blank = png_bytes(Image.new("RGB", (200, 100), "white"))
    messages = [
        {"role": "user", "content": "Task", "images": [0]},
        {"role": "assistant", "content": "```python\npyautogui.click(50, 40)\n```"},
        {"role": "user", "content": "Done 1 action(s).", "images": [1]},
        {"role": "assistant", "content": '{"action_type": "click", "x": 150, "y": 60}'},
        {"role": "user", "content": "Error: bad", "images": []},
        {"role": "assistant", "content": "```python\nexec('x')\n```"},
    ]
    return Trajectory(task_id="form-00", env_id="gui/desktop-v0", messages=messages,
                      images=[blank, blank])


def test_points_follow_the_screenshot_they_answer():
    assert turn_points(_traj()) == {0: [(50, 40)], 1: [(150, 60)]}


def test_marks_are_drawn_in_red_and_the_viewer_links_them(tmp_path: Path):
    marked = mark_clicks(_traj())
    first = Image.open(io.BytesIO(marked.images[0])).convert("RGB")
    assert first.getpixel((50 + 12, 40)) == (230, 0, 0)  # on the ring
    assert first.getpixel((150, 60)) == (255, 255, 255)  # the other click is on image 1
    second = Image.open(io.BytesIO(marked.images[1])).convert("RGB")
    assert second.getpixel((150, 60 - 12)) == (230, 0, 0)
    index = write_gui_viewer(tmp_path, [_traj()])
    page = next(p for p in tmp_path.glob("*.html") if p != index)
    assert "images/" in page.read_text() and len(list(tmp_path.rglob("*.png"))) == 2
