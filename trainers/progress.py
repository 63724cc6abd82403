"""A rich progress bar for training runs (on stderr; a no-op when disabled)."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class RunProgress:
    """Steps done, elapsed time, and the latest reward and held-out success."""

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
        """Show step ``step`` done with its reward, loss and the last held-out success."""
        parts = [f"reward {metrics.get('reward', 0):.3f}", f"loss {metrics.get('loss', 0):+.4f}"]
        if "success_greedy" in last_eval:
            parts.append(f"held-out greedy {last_eval['success_greedy']:.3f}")
        if "success_sampled" in last_eval:
            parts.append(f"sampled {last_eval['success_sampled']:.3f}")
        self._progress.update(self._task, completed=step, description="  ".join(parts))


__all__ = ["RunProgress"]
