"""Metrics: TensorBoard events, a ``metrics.jsonl`` log, optional wandb, and the final report.

Every logged row is one JSON line ``{"step": N, "kind": "train"|"eval", ...}`` in
``<output_dir>/metrics.jsonl``; the report reads it back, so a resumed run draws its whole curve.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


class MetricsLogger:
    """Writes scalar metrics to TensorBoard, JSON lines and (optionally) wandb."""

    def __init__(
        self,
        output_dir: str | Path,
        *,
        tensorboard: bool = True,
        wandb: bool = False,
        config: dict[str, Any] | None = None,
        enabled: bool = True,
    ) -> None:
        self.dir = Path(output_dir)
        self.enabled = enabled
        self.path = self.dir / "metrics.jsonl"
        self._tb: Any = None
        self._wandb: Any = None
        if not enabled:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:
                logger.warning("tensorboard is not installed; logging to metrics.jsonl only")
            else:
                self._tb = SummaryWriter(str(self.dir / "tb"))
        if wandb:
            try:
                import wandb as wandb_mod
            except ImportError:
                logger.warning("wandb is not installed; skipping it")
            else:
                self._wandb = wandb_mod.init(config=config or {}, dir=str(self.dir), resume="allow")

    def truncate_after(self, step: int) -> None:
        """Drop rows logged after ``step`` (a resumed run repeats them)."""
        if not self.enabled or not self.path.exists():
            return
        rows = [r for r in read_metrics(self.path) if int(r.get("step", 0)) <= step]
        self.path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    def log(self, step: int, kind: str, values: dict[str, Any]) -> None:
        """Record ``values`` (numbers are plotted, anything else only kept in the JSON line)."""
        if not self.enabled:
            return
        row = {"step": step, "kind": kind, **values}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, default=str) + "\n")
        scalars = {
            f"{kind}/{k}": float(v) for k, v in values.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
        }
        if self._tb is not None:
            for key, value in scalars.items():
                self._tb.add_scalar(key, value, step)
            self._tb.flush()
        if self._wandb is not None:
            self._wandb.log(scalars, step=step)

    def close(self) -> None:
        """Flush and close the writers."""
        if self._tb is not None:
            self._tb.close()
        if self._wandb is not None:
            self._wandb.finish()


def read_metrics(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a ``metrics.jsonl`` file."""
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def plot_report(metrics_path: str | Path, out_png: str | Path, title: str = "") -> Path:
    """Learning curves as one PNG (:func:`report_figure` of the run's ``metrics.jsonl``)."""
    import matplotlib.pyplot as plt

    fig = report_figure(read_metrics(metrics_path), title)
    out = Path(out_png)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def report_figure(rows: list[dict[str, Any]], title: str = "") -> Any:
    """The report's figure: training rollouts (reward, success; the behaviour-cloning steps'
    loss on their own axis, the BC and GRPO phases shaded) and held-out success, greedy and
    sampled, with the first and last evaluation written on the curve (the run's before/after)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train = [r for r in rows if r["kind"] == "train" and "reward" in r]
    bc = [r for r in rows if r["kind"] == "train" and "bc_loss" in r]
    evals = [r for r in rows if r["kind"] == "eval"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    if train:
        ax1.plot([r["step"] for r in train], [r["reward"] for r in train], marker=".",
                 label="reward")
        ax1.plot([r["step"] for r in train], [r.get("success", 0) for r in train],
                 label="success", alpha=0.6)
    loss_ax = None
    if bc:
        bc_end = max(r["step"] for r in bc)
        ax1.axvspan(0, bc_end, color="tab:gray", alpha=0.12, label="behaviour cloning")
        last = max([r["step"] for r in rows] or [bc_end])
        if last > bc_end:
            ax1.axvspan(bc_end, last, color="tab:green", alpha=0.08, label="GRPO")
        ax2.axvline(bc_end, color="tab:gray", linestyle=":", label="end of BC")
        loss_ax = ax1.twinx()
        loss_ax.plot([r["step"] for r in bc], [r["bc_loss"] for r in bc], color="tab:purple",
                     marker=".", label="BC loss")
        loss_ax.set_ylabel("BC loss", color="tab:purple")
        loss_ax.set_ylim(bottom=0)
    ax1.set_xlabel("step")
    ax1.set_title("training")
    ax1.set_ylim(-0.05, 1.05)
    ends: dict[str, list[tuple[float, int, str, Any]]] = {"before": [], "after": []}
    for i, (key, label) in enumerate((("success_greedy", "greedy"),
                                      ("success_sampled", "sampled"))):
        points = [(r["step"], r[key]) for r in evals if key in r]
        if points:
            line, = ax2.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                             label=label)
            ends["before"].append((points[0][1], i, line.get_color(), points[0][0]))
            if len(points) > 1:
                ends["after"].append((points[-1][1], i, line.get_color(), points[-1][0]))
    for word, marks in ends.items():
        for (value, _, color, step), dy in zip(marks, _label_offsets([m[0] for m in marks]),
                                               strict=True):
            ax2.annotate(f"{word} {value:.0%}", (step, value), textcoords="offset points",
                         xytext=(0, dy), ha="center", fontsize=8, color=color)
    held_out = next((r.get("episodes_greedy") for r in evals if r.get("episodes_greedy")), None)
    ax2.set_xlabel("step")
    ax2.set_title(f"held-out success ({held_out} tasks never trained on)" if held_out
                  else "held-out success")
    ax2.set_ylim(-0.05, 1.05)
    handles, labels = ax1.get_legend_handles_labels()
    if loss_ax is not None:  # the BC loss lives on its own axis: one legend for both
        more = loss_ax.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    if handles:
        ax1.legend(handles, labels, loc="center right", fontsize=8)
    if ax2.get_lines():  # held-out curves rise to the right: the legend goes top left
        ax2.legend(loc="upper left", fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _label_offsets(values: list[float]) -> list[float]:
    """Vertical offsets (points) of the labels of one or two curves' points at the same step:
    above a point, or below it near the top; two close points get one label above and one
    below, or both on the free side, stacked, so the labels never sit on each other."""
    if len(values) != 2 or abs(values[0] - values[1]) > 0.15:
        return [-14 if v > 0.9 else 8 for v in values]
    hi = 0 if values[0] >= values[1] else 1
    if min(values) < 0.15:  # both low: both above, the higher one further up
        return [20 if i == hi else 8 for i in range(2)]
    if max(values) > 0.85:  # both high: both below, the lower one further down
        return [-14 if i == hi else -26 for i in range(2)]
    return [8 if i == hi else -14 for i in range(2)]


__all__ = ["MetricsLogger", "plot_report", "read_metrics", "report_figure"]
