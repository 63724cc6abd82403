"""Eval outputs: ``results.json``, a Markdown report and a PNG plot (matplotlib, Agg backend)."""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import AgentGymError
from .trajectory import Trajectory

logger = logging.getLogger(__name__)


def _plot(path: Path, results: dict[str, Any], trajs: list[Trajectory]) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = results["per_task"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    rates = [r["successes"] / r["samples"] if r["samples"] else 0.0 for r in rows]
    if len(rows) <= 40:
        ax1.bar(range(len(rows)), rates, color="tab:green")
        ax1.set_xticks(range(len(rows)), [str(r["task_id"]) for r in rows], rotation=90,
                       fontsize=6)
        ax1.set_ylabel("success rate")
        ax1.set_title("success per task")
    else:
        ax1.hist(rates, bins=10, range=(0, 1), color="tab:green")
        ax1.set_xlabel("per-task success rate")
        ax1.set_title("tasks by success rate")
    ax1.set_ylim(0, 1.05) if len(rows) <= 40 else None
    ok = [t.turns for t in trajs if t.success]
    bad = [t.turns for t in trajs if not t.success and not t.aborted]
    top = max([*ok, *bad, 1])
    ax2.hist([ok, bad], bins=range(0, top + 2), label=["success", "failure"],
             color=["tab:green", "tab:red"], stacked=True, align="left", rwidth=0.8)
    ax2.set_xticks(range(0, top + 1))
    ax2.set_xlabel("turns")
    ax2.set_ylabel("episodes")
    ax2.set_title("turns per episode")
    ax2.legend()
    fig.suptitle(f"{results['config']['env_id']} / {results['config']['policy']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def md_text(value: Any) -> str:
    """``value`` as inert Markdown text on one line: HTML escaped, ``|`` escaped (no forged
    table cells), newlines as spaces. Abort messages and task ids come from envs and models."""
    text = " ".join(str(value).split())
    return html.escape(text, quote=False).replace("|", "\\|").replace("`", "\\`")


def render_markdown(results: dict[str, Any], plot_name: str | None,
                    viewer: str | None = None) -> str:
    """The report's Markdown text (``viewer``: the trajectory viewer's path, relative)."""
    c, m = results["config"], results["metrics"]
    low, high = m["success_ci95"]
    rate = f"{m['success_rate']:.1%}" if m["episodes"] else "-"
    ci = f"[{low:.1%}, {high:.1%}]" if m["episodes"] else "- (no completed episode)"
    lines = [
        f"# Evaluation: {md_text(c['env_id'])}",
        "",
        f"- policy: {md_text(c['policy'])} ({md_text(results['policy'].get('class', ''))})",
        f"- split: `{c['split']}`, tasks: {m['tasks']}, samples per task: {c['k']}, "
        f"temperature: {c['temperature']}",
        f"- agentgym {results.get('agentgym_version', '?')}, {results.get('created', '?')}",
        *([f"- trajectories: [{viewer}]({viewer}) (every episode, step by step)"]
          if viewer else []),
        "",
        "| metric | value |",
        "| --- | --- |",
        f"| success rate | {rate} ({m['successes']}/{m['episodes']} completed) |",
        f"| 95% CI (Wilson) | {ci} |",
        f"| aborted (not scored) | {m['aborted']} of {m.get('total_episodes', m['episodes'])} |",
        f"| mean reward | {m['mean_reward']:.3f} |",
    ]
    lines += [f"| {name} | {value:.1%} |" for name, value in m["pass_at_k"].items()]
    lines += [
        f"| mean turns | {m['mean_turns']:.2f} |",
        f"| mean generated tokens | {m['mean_generated_tokens']:.1f} |",
        f"| wall time | {m['wall_s']:.1f} s |",
        f"| truncated | {m['truncated']} |",
        "",
    ]
    if m["abort_reasons"]:
        lines += ["Aborted episodes are infrastructure failures (a dead server, a killed "
                  "container), left out of every figure above. Reasons:", "",
                  *[f"- {md_text(r)}" for r in m["abort_reasons"]], ""]
    ends = results.get("end_reasons") or {}
    if ends:
        lines += ["## How episodes ended", "", "| end | episodes |", "| --- | --- |",
                  *[f"| {md_text(reason)} | {count} |" for reason, count in ends.items()], ""]
    if plot_name:
        lines += [f"![results]({plot_name})", ""]
    lines += ["## Per task", "",
              "| task | completed | successes | mean reward | mean turns | aborted |",
              "| --- | --- | --- | --- | --- | --- |"]
    lines += [
        f"| {md_text(r['task_id'])} | {r['samples']} | {r['successes']} | {r['mean_reward']:.3f} | "
        f"{r['mean_turns']:.2f} | {r.get('aborted', 0)} |"
        for r in results["per_task"]
    ]
    return "\n".join(lines) + "\n"


def write_results(out: Path, results: dict[str, Any], trajs: list[Trajectory]) -> list[Path]:
    """Write ``results.json``, ``report.md``, ``report.png`` (with matplotlib) and the
    trajectory viewer (``viewer/index.html``: one page per episode, screenshots when the
    observations have images) into ``out``; return the paths written, the viewer's index last.
    """
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.json"]
    written[0].write_text(json.dumps(results, indent=2, default=str) + "\n")
    plot = "report.png" if _plot(out / "report.png", results, trajs) else None
    env_id = str(results.get("config", {}).get("env_id", ""))
    index = viewer_for(env_id)(out / "viewer", trajs, image_root=out / "trajectories")
    viewer = Path(index).relative_to(out).as_posix()
    (out / "report.md").write_text(render_markdown(results, plot, viewer))
    written += [out / "report.md", *([out / plot] if plot else []), Path(index)]
    return written


def viewer_for(env_id: str) -> Callable[..., Path]:
    """The env's own viewer writer (its spec's ``viewer``), else the generic one.

    A writer that cannot be imported is reported and replaced by the generic viewer, so a
    broken plugin never costs an evaluation its report.
    """
    from ..registry import spec
    from ..specs import load_entry_point
    from .viewer import write_viewer

    try:
        target = spec(env_id).viewer if env_id else None
        return load_entry_point(target) if target else write_viewer  # type: ignore[no-any-return]
    except AgentGymError as e:
        logger.warning("env %s: its viewer is unavailable (%s); using the generic one", env_id, e)
        return write_viewer


__all__ = ["md_text", "render_markdown", "viewer_for", "write_results"]
