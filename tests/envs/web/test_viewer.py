"""The trajectory viewer written by ``agentgym eval`` renders with its screenshots in Chromium."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentgym.rollout.evaluate import EvalConfig, run_eval
from agentgym.rollout.trajectory import Trajectory
from agentgym.rollout.viewer import episode_steps, write_viewer
from agentgym.sandboxes.browser import BrowserPool, NetworkPolicy


def test_steps_from_a_text_trajectory(tmp_path: Path) -> None:
    traj = Trajectory(task_id="t<1>", env_id="x/y-v0", messages=[
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "obs 0", "images": [0]},
        {"role": "assistant", "content": "click [3]"},
        {"role": "user", "content": "Error: no element [3]\nobs 1"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "stop"}}]},
    ], step_rewards=[0.0, 1.0], reward=1.0, turns=2, terminated=True,
        images=[b"\x89PNG fake"])
    steps = episode_steps(traj, ["img0.png"])
    assert [s.images for s in steps] == [["img0.png"], []]
    assert steps[1].error == "Error: no element [3]" and steps[1].reward == 1.0
    assert "stop" in steps[1].tool_calls
    index = write_viewer(tmp_path / "v", [traj])
    page = next(p for p in (tmp_path / "v").glob("0000_*.html"))
    assert "t&lt;1&gt;" in page.read_text() and "t<1>" not in page.read_text()
    assert (tmp_path / "v" / "images").is_dir() and index.name == "index.html"


async def _render(url: str) -> tuple[list[tuple[bool, int]], str, list[str]]:
    async with BrowserPool(max_browsers=1) as pool:
        session = await pool.new_session(NetworkPolicy())
        await session.context.unroute_all()  # the viewer is a file:// page
        await session.page.goto(url)
        images = await session.page.evaluate(
            "Array.from(document.images).map(i => [i.complete, i.naturalWidth])")
        text = await session.page.inner_text("body")
        links = await session.page.evaluate(
            "Array.from(document.links).map(a => a.href)")
        await session.aclose()
    return images, text, links


@pytest.mark.browser
def test_eval_writes_a_viewer_that_renders(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    results = run_eval(EvalConfig("miniwob/click-test-v0", policy="scripted", n=2, num_envs=2,
                                  out=str(out)))
    assert results["metrics"]["success_rate"] == 1.0
    index = out / "viewer" / "index.html"
    images, text, links = asyncio.run(_render(index.as_uri()))
    assert "2/2 successful episodes" in text
    assert len(images) == 2 and all(ok and width == 160 for ok, width in images)
    episode = next(link for link in links if link.endswith(".html"))
    images, text, _ = asyncio.run(_render(episode))
    assert images and all(ok and width > 0 for ok, width in images)
    assert "click [" in text and "reward 1" in text and "Click Me!" in text
