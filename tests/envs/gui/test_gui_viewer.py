"""GUI episodes in the trajectory viewer: clicks are marked on the screenshot they aimed at."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from PIL import Image

from agentgym.envs.gui.backends import png_bytes
from agentgym.envs.gui.viewer import mark_clicks, turn_points, write_gui_viewer
from agentgym.rollout.evaluate import EvalConfig, run_eval
from agentgym.rollout.store import TrajectoryStore
from agentgym.rollout.trajectory import Trajectory

from .gui_helpers import needs_desktop


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


async def _rendered_screenshots(url: str) -> tuple[list[bytes], str]:
    """Chromium's rendering of every image on the page (element screenshots) and its text."""
    from agentgym.sandboxes.browser import BrowserPool, NetworkPolicy

    async with BrowserPool(max_browsers=1) as pool:
        session = await pool.new_session(NetworkPolicy())
        await session.context.unroute_all()  # the viewer is a file:// page
        await session.page.goto(url)
        shots = [await img.screenshot() for img in await session.page.locator("img").all()]
        text = await session.page.inner_text("body")
        await session.aclose()
    return shots, text


def _red_pixels(png: bytes) -> int:
    import numpy as np

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)  # (H, W, 3)
    return int(((rgb[..., 0] > 180) & (rgb[..., 1] < 60) & (rgb[..., 2] < 60)).sum())


@pytest.mark.xvfb
@pytest.mark.browser
@needs_desktop
def test_eval_out_writes_the_gui_viewer_with_clicks_marked(tmp_path: Path) -> None:
    """``agentgym eval gui/... --out`` uses the GUI viewer; Chromium shows the red click marks."""
    from agentgym.sandboxes.browser import chromium_available

    if not chromium_available():
        pytest.skip("Chromium or Playwright not installed")
    out = tmp_path / "eval"
    results = run_eval(EvalConfig("gui/desktop-v0", policy="scripted", n=1, num_envs=1,
                                  out=str(out)))  # form-09: clicks into the form's fields
    assert results["metrics"]["success_rate"] == 1.0
    [traj] = list(TrajectoryStore(out / "trajectories", resume=True))
    clicked = set(turn_points(traj))
    assert clicked, "the expert clicked nothing"
    page = next(p for p in (out / "viewer").glob("0000_*.html"))
    shots, text = asyncio.run(_rendered_screenshots(page.as_uri()))
    assert "click" in text and len(shots) == len(traj.image_paths)
    for i, shot in enumerate(shots):  # the app is grey and white: red is the viewer's mark
        assert (_red_pixels(shot) > 20) == (i in clicked), i


def test_gui_envs_name_their_viewer() -> None:
    from agentgym.rollout.report import viewer_for

    assert viewer_for("gui/desktop-v0") is write_gui_viewer
    assert viewer_for("gui/desktop-vnc-v0") is write_gui_viewer
