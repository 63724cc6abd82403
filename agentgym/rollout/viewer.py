"""Trajectory viewer: one static HTML page per episode plus an index, for any env.

Each page walks the episode's conversation as steps: the observation the model saw (its images,
e.g. a browser or desktop screenshot, and a text excerpt with the full text folded), the model's
text and tool calls, the step reward and any ``Error:`` line the env answered with. Nothing here
knows about a particular env: an env whose observations carry images gets screenshots, others get
text only. Images come from the trajectory store (``image_paths``, linked relatively) or, for
trajectories held in memory, are written next to the pages.

A summarised episode (SUPO, :mod:`agentgym.rollout.summary`) is shown context by context: a
``context N of M`` banner opens each, the summary request and the summary the model wrote close
it (the task and summary a later context starts with are not repeated).

``agentgym eval --out DIR`` writes ``DIR/viewer/index.html`` when the episodes have images.
"""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .trajectory import Trajectory
from .viewer_netlog import network_panel

EXCERPT_CHARS = 1200
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")

CSS = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin:0 0 8px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px}
.step{display:flex;gap:16px;border:1px solid #ddd;border-radius:6px;padding:12px;margin:12px 0}
.shot img{max-width:420px;border:1px solid #999}.fields{flex:1;min-width:0}
pre{white-space:pre-wrap;background:#f6f6f6;padding:6px;font-size:12px;margin:4px 0}
.err{color:#b00020;font-weight:bold}.ok{color:#0a7d28}.bad{color:#b00020}
.label{font-size:11px;text-transform:uppercase;color:#777;margin-top:6px}
.thumb{max-height:60px}
"""


@dataclass
class Step:
    """One step of an episode: what was observed, then what the model did."""

    images: list[str] = field(default_factory=list)
    """Image URLs relative to the page."""
    observation: str = ""
    model_text: str = ""
    tool_calls: str = ""
    reward: float | None = None
    error: str = ""
    heading: str = ""
    """Set on a banner between contexts (``context 2 of 3``) and on summary steps."""


def _errors(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if ln.startswith("Error"))[:500]


def episode_steps(traj: Trajectory, image_urls: list[str]) -> list[Step]:
    """Split a trajectory's messages into steps (observation, then the model's turn), context
    by context for a summarised episode."""
    steps: list[Step] = []
    current: Step | None = None
    turn = 0
    contexts = [s.messages for s in traj.segments] + [traj.messages]
    for n, messages in enumerate(contexts):
        if len(contexts) > 1:
            opening = "the task" if n == 0 else f"the task and summary {n}"
            steps.append(Step(heading=f"context {n + 1} of {len(contexts)} (starts with "
                                      f"{opening})"))
            current = None
        for message in messages[3 if n else 0:]:  # a later context repeats task + summary
            role = message.get("role")
            content = message.get("content") or ""
            content = content if isinstance(content, str) else json.dumps(content)
            if role == "system":
                continue
            if role in ("user", "tool"):
                current = Step(observation=content, error=_errors(content), images=[
                    image_urls[i] for i in message.get("images", ()) if i < len(image_urls)],
                    heading="summary request" if message.get("summary_request") else "")
                steps.append(current)
            elif role == "assistant":
                if current is None or current.model_text or current.tool_calls:
                    current = Step()
                    steps.append(current)
                current.model_text = content
                calls = message.get("tool_calls")
                current.tool_calls = json.dumps(calls, indent=1) if calls else ""
                if message.get("summary"):
                    continue  # a summary is no env step: no reward of its own
                if turn < len(traj.step_rewards):
                    current.reward = traj.step_rewards[turn]
                turn += 1
    if traj.final_observation:
        steps.append(Step(observation=traj.final_observation,
                          error=_errors(traj.final_observation)))
    return steps


def _status(traj: Trajectory) -> str:
    if traj.aborted:
        return f"aborted: {traj.reason}"
    if traj.truncated:
        return f"truncated: {traj.reason}"
    return "terminated" if traj.terminated else "unfinished"


def _text_block(label: str, text: str, css: str = "") -> str:
    if not text:
        return ""
    body = html.escape(text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + " ...")
    out = f'<div class="label">{label}</div><pre class="{css}">{body}</pre>'
    if len(text) > EXCERPT_CHARS:
        out += f"<details><summary>full {label}</summary><pre>{html.escape(text)}</pre></details>"
    return out


def render_episode(traj: Trajectory, image_urls: list[str], index_href: str = "index.html") -> str:
    """The HTML page of one episode."""
    title = f"{traj.env_id} / {traj.task_id} / sample {traj.sample_idx}"
    verdict = '<span class="ok">success</span>' if traj.success else '<span class="bad">fail</span>'
    rows = [("env", traj.env_id), ("task", str(traj.task_id)), ("reward", f"{traj.reward:g}"),
            ("status", _status(traj)), ("turns", str(traj.turns)), ("seed", str(traj.seed))]
    head = "".join(f"<tr><th>{k}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
             f"</title><style>{CSS}</style></head><body>",
             f'<p><a href="{index_href}">&larr; all episodes</a></p>',
             f"<h1>{html.escape(title)} {verdict}</h1><table>{head}</table>"]
    i = 0
    for step in episode_steps(traj, image_urls):
        if step.heading and not (step.observation or step.model_text):
            parts.append(f"<h2>{html.escape(step.heading)}</h2>")
            continue
        shots = "".join(f'<img src="{html.escape(u)}" alt="step {i} screenshot">'
                        for u in step.images)
        reward = "" if step.reward is None else f" &middot; reward {step.reward:g}"
        what = f" &middot; {html.escape(step.heading)}" if step.heading else ""
        fields = (f"<h2>step {i}{reward}{what}</h2>"
                  + (f'<div class="err">{html.escape(step.error)}</div>' if step.error else "")
                  + _text_block("observation", step.observation)
                  + _text_block("summary" if step.heading else "model", step.model_text)
                  + _text_block("tool calls", step.tool_calls))
        parts.append(f'<div class="step"><div class="shot">{shots}</div>'
                     f'<div class="fields">{fields}</div></div>')
        i += 1
    parts.append(network_panel(traj.info))
    parts.append("</body></html>")
    return "\n".join(parts)


def _page_name(traj: Trajectory, n: int) -> str:
    return _SAFE.sub("_", f"{n:04d}_{traj.task_id}_{traj.sample_idx}") + ".html"


def _image_urls(traj: Trajectory, out: Path, image_root: Path | None, name: str) -> list[str]:
    if traj.images:
        folder = out / "images" / name.removesuffix(".html")
        folder.mkdir(parents=True, exist_ok=True)
        urls = []
        for i, image in enumerate(traj.images):
            (folder / f"{i}.png").write_bytes(image)
            urls.append(f"images/{folder.name}/{i}.png")
        return urls
    if image_root is not None and traj.image_paths:
        return [Path(os.path.relpath(image_root / p, out)).as_posix() for p in traj.image_paths]
    return []


def write_viewer(out: Path, trajs: list[Trajectory], image_root: Path | None = None) -> Path:
    """Write one page per trajectory and ``index.html`` into ``out``; return the index path.

    ``image_root`` is the trajectory store folder that ``image_paths`` are relative to.
    """
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for n, traj in enumerate(trajs):
        name = _page_name(traj, n)
        urls = _image_urls(traj, out, image_root, name)
        (out / name).write_text(render_episode(traj, urls), encoding="utf-8")
        thumb = f'<img class="thumb" src="{html.escape(urls[-1])}" alt="">' if urls else ""
        verdict = "success" if traj.success else "fail"
        rows.append(
            f'<tr><td><a href="{name}">{html.escape(str(traj.task_id))}</a></td>'
            f"<td>{traj.sample_idx}</td><td>{traj.reward:g}</td><td>{verdict}</td>"
            f"<td>{html.escape(_status(traj))}</td><td>{traj.turns}</td><td>{thumb}</td></tr>")
    env_ids = sorted({t.env_id for t in trajs})
    successes = sum(t.success for t in trajs)
    index = (f"<!doctype html><html><head><meta charset='utf-8'><title>episodes</title>"
             f"<style>{CSS}</style></head><body><h1>{html.escape(', '.join(env_ids))}: "
             f"{successes}/{len(trajs)} successful episodes</h1><table><tr><th>task</th>"
             "<th>sample</th><th>reward</th><th>result</th><th>status</th><th>turns</th>"
             "<th>last screenshot</th></tr>" + "\n".join(rows) + "</table></body></html>")
    path = out / "index.html"
    path.write_text(index, encoding="utf-8")
    return path


def has_images(trajs: list[Trajectory]) -> bool:
    """Whether any trajectory carries observation images (the viewer is worth writing)."""
    return any(t.images or t.image_paths for t in trajs)


__all__ = ["Step", "episode_steps", "has_images", "render_episode", "write_viewer"]
