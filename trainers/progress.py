"""A rich progress bar for training runs (on stderr; a no-op when disabled)."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class RunProgress:
    """Steps done, elapsed time, the latest step's figures and the held-out success."""

    def __init__(self, total: int, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._progress = Progress(
            TextColumn("[bold]train"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=Console(stderr=True), disable=not enabled,
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

    def advance_to(self, step: int) -> None:
        """Show ``step`` steps done (after a resume)."""
        self._progress.update(self._task, completed=step)

    def update(self, step: int, metrics: dict[str, Any], last_eval: dict[str, Any]) -> None:
        """Show step ``step`` done with :func:`step_summary` and the last held-out success."""
        parts = [step_summary(metrics)]
        if "success_greedy" in last_eval:
            parts.append(f"held-out greedy {last_eval['success_greedy']:.3f}")
        if "success_sampled" in last_eval:
            parts.append(f"sampled {last_eval['success_sampled']:.3f}")
        self._progress.update(self._task, completed=step, description="  ".join(parts))


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
