"""A rich progress bar for training runs (on stderr; a no-op when disabled).

The bar's row keeps what must never go: steps done of all, elapsed time, and the phase (a
held-out evaluation in progress says so, with its task count: it can take minutes). The latest
step's figures go on a line of their own below it, wrapped to the terminal, so an 80-column
terminal shows them whole instead of squeezing out the step counter and the time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import Any

from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text


class _TwoLineProgress(Progress):
    """The bar row, then the figures line (when there are figures)."""

    figures = ""

    def get_renderables(self) -> Iterable[RenderableType]:
        """The bar, then the latest figures."""
        yield self.make_tasks_table(self.tasks)
        if self.figures:
            yield Text("  " + self.figures, style="dim")


class RunProgress:
    """Steps done, elapsed time, the phase, the latest step's figures and held-out success."""

    def __init__(self, total: int, *, enabled: bool = True,
                 console: Console | None = None) -> None:
        self.enabled = enabled
        self._progress = _TwoLineProgress(
            TextColumn("[bold]train"), BarColumn(bar_width=20), MofNCompleteColumn(),
            TimeElapsedColumn(), TextColumn("{task.description}"),
            console=console or Console(stderr=True), disable=not enabled,
        )
        self._task = self._progress.add_task("", total=total)

    def __enter__(self) -> RunProgress:
        self._progress.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    @property
    def figures(self) -> str:
        """The figures line as shown now."""
        return self._progress.figures

    @property
    def phase(self) -> str:
        """The phase shown beside the bar ('' between steps)."""
        return str(self._progress.tasks[0].description)

    def advance_to(self, step: int) -> None:
        """Show ``step`` steps done (after a resume)."""
        self._progress.update(self._task, completed=step)

    @contextlib.contextmanager
    def evaluating(self, tasks: int) -> Iterator[None]:
        """Say a held-out evaluation of ``tasks`` tasks runs (the bar stands still meanwhile)."""
        self._progress.update(self._task, description=f"held-out evaluation ({tasks} tasks)...")
        try:
            yield
        finally:
            self._progress.update(self._task, description="")

    def update(self, step: int, metrics: dict[str, Any], last_eval: dict[str, Any]) -> None:
        """Show step ``step`` done with :func:`step_summary` and the last held-out success."""
        parts = [step_summary(metrics)]
        if "success_greedy" in last_eval:
            parts.append(f"held-out greedy {last_eval['success_greedy']:.3f}")
        if "success_sampled" in last_eval:
            parts.append(f"sampled {last_eval['success_sampled']:.3f}")
        self._progress.figures = "  ".join(parts)
        self._progress.update(self._task, completed=step)


def step_summary(metrics: dict[str, Any]) -> str:
    """The figures of one step that move: a behaviour-cloning step's loss, an RL step's reward,
    gradient norm and KL (or entropy when no KL is measured).

    GRPO's loss is about 0 by construction (advantages are normalised within each group, so the
    policy-gradient term averages to 0 at the behaviour policy), so it is not shown: the
    gradient norm says how hard the step pushed, the reward whether rollouts improve.
    """
    if "bc_loss" in metrics:
        return f"BC loss {metrics['bc_loss']:.3f}  grad-norm {metrics.get('grad_norm', 0):.2f}"
    parts = [f"reward {metrics.get('reward', 0):.3f}"]
    if "grad_norm" in metrics:
        parts.append(f"grad-norm {metrics['grad_norm']:.2f}")
    if metrics.get("kl"):
        parts.append(f"KL {metrics['kl']:.4f}")
    elif "entropy" in metrics:
        parts.append(f"entropy {metrics['entropy']:.3f}")
    return "  ".join(parts)


__all__ = ["RunProgress", "step_summary"]
