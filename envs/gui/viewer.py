"""GUI episodes in the trajectory viewer, with each click marked on the screenshot it aimed at.

:func:`mark_clicks` reads every assistant turn of a trajectory with the GUI action parser (never
running anything), finds the screenshot the turn was answering (the last image before it) and
draws a red ring and cross at each clicked, pressed or swiped point. :func:`write_gui_viewer`
hands the marked copies to the project's generic viewer (:mod:`agentgym.rollout.viewer`).
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

from PIL import Image, ImageDraw

from agentgym.rollout.trajectory import Trajectory
from agentgym.rollout.viewer import write_viewer

from .actions import ActionError
from .parse import parse_action

POINTER_KINDS = ("click", "long_press", "swipe", "drag", "move", "down")


def turn_points(traj: Trajectory) -> dict[int, list[tuple[int, int]]]:
    """Image index -> points the following assistant turn clicked (screenshot pixels)."""
    marks: dict[int, list[tuple[int, int]]] = {}
    last_image: int | None = None
    for message in traj.messages:
        if message.get("images"):
            last_image = int(message["images"][-1])
        elif message.get("role") == "assistant" and last_image is not None:
            try:
                prims = parse_action(message.get("content") or "")
            except ActionError:
                continue
            points = [(p.x, p.y) for p in prims
                      if p.kind in POINTER_KINDS and p.x is not None and p.y is not None]
            if points:
                marks.setdefault(last_image, []).extend(points)  # type: ignore[arg-type]
    return marks


def draw_marks(png: bytes, points: list[tuple[int, int]]) -> bytes:
    """``png`` with a numbered red ring at each point."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    draw = ImageDraw.Draw(image)
    for n, (x, y) in enumerate(points, 1):
        draw.ellipse((x - 12, y - 12, x + 12, y + 12), outline=(230, 0, 0), width=3)
        draw.line((x - 5, y, x + 5, y), fill=(230, 0, 0), width=2)
        draw.line((x, y - 5, x, y + 5), fill=(230, 0, 0), width=2)
        draw.text((x + 14, y - 14), str(n), fill=(230, 0, 0))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def mark_clicks(traj: Trajectory, image_root: Path | None = None) -> Trajectory:
    """A copy of ``traj`` whose images carry the click marks (images read from the store if
    the trajectory holds only their paths)."""
    images = list(traj.images)
    if not images and image_root is not None:
        images = [(image_root / p).read_bytes() for p in traj.image_paths]
    for index, points in turn_points(traj).items():
        if index < len(images):
            images[index] = draw_marks(images[index], points)
    return replace(traj, images=images)


def write_gui_viewer(out: Path, trajs: list[Trajectory], image_root: Path | None = None) -> Path:
    """Write the viewer for GUI episodes into ``out`` with clicks marked; return the index."""
    return write_viewer(out, [mark_clicks(t, image_root) for t in trajs])


__all__ = ["draw_marks", "mark_clicks", "turn_points", "write_gui_viewer"]
