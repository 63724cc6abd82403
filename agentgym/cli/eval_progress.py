"""The progress display of ``agentgym eval``: finished episodes, and each running one turn by turn.

Under the bar of finished episodes (successes, aborts, elapsed time and an estimate of the time
left), one line per running episode shows its turn, tokens generated, tokens per second and an
upper estimate of its time left (:class:`~agentgym.rollout.live.LiveEpisodes`). Once the first
turns have been timed, a run whose estimate passes :data:`LONG_RUN_S` gets one warning line
saying how long it may take and what shortens it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from ..rollout.live import LiveEpisodes

LONG_RUN_S = 600.0
"""A run estimated to take longer than this (seconds) is announced with a warning."""
SHOWN = 8
"""Running episodes shown one per line; the others are counted."""


def duration(seconds: float | None) -> str:
    """``42s``, ``3m05s``, ``1h12m`` (``?`` when unknown)."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def episode_line(row: dict[str, Any], max_turns: int) -> str:
    """One running episode: task, turn, tokens, tokens/s and its estimated time left."""
    sample = f" #{row['sample_idx']}" if row["sample_idx"] else ""
    left = "" if row["left_s"] is None else f"  <= {duration(row['left_s'])} left"
    return (f"  {row['task_id']}{sample}: turn {row['turn']}/{max_turns}  "
            f"{row['tokens']} tokens  {row['tokens_per_s']:.1f} tok/s{left}")


def long_run_warning(live: LiveEpisodes, remaining: int) -> str | None:
    """The warning for a run that may pass :data:`LONG_RUN_S`, else None."""
    estimate = live.run_estimate_s(remaining)
    mean = live.mean_turn_s
    if estimate is None or mean is None or estimate <= LONG_RUN_S:
        return None
    return (f"this run may take up to about {duration(estimate)} more ({remaining} episodes, "
            f"up to {live.max_turns} turns each at about {mean:.1f} s a turn, "
            f"{live.concurrency} at a time); -n, --max-turns or --max-new-tokens shorten it")


class EvalProgress(Progress):
    """The bar of finished episodes with a line per running episode below it."""

    def __init__(self, description: str, console: Console) -> None:
        self.episodes: LiveEpisodes | None = None  # read by the first render, in __init__
        super().__init__(TextColumn("[bold]{task.description}"), BarColumn(),
                         MofNCompleteColumn(),
                         TextColumn("success {task.fields[wins]}  aborted {task.fields[aborted]}"),
                         TimeElapsedColumn(), TextColumn("{task.fields[eta]}"), console=console)
        self.job = self.add_task(description, total=None, wins=0, aborted=0, eta="")
        self.wins = self.aborted = 0
        self.warned = False

    def run_started(self, total: int, skipped: int, wins: int = 0) -> None:
        """The run starts: ``total`` episodes, ``skipped`` of them already stored (a resumed
        run), ``wins`` of those successes: the bar counts them from the start."""
        self.wins = wins
        self.update(self.job, total=total, completed=skipped, wins=wins)
        self.start()

    def episode_finished(self, traj: Any) -> None:
        """An episode came back."""
        self.wins += int(traj.success and not traj.aborted)
        self.aborted += int(traj.aborted)
        self.update(self.job, advance=1, wins=self.wins, aborted=self.aborted)

    def turn_finished(self, live: LiveEpisodes) -> None:
        """A model turn or an episode ended: refresh the estimate; warn once on a long run."""
        self.episodes = live
        task = self._tasks[self.job]
        remaining = int((task.total or 0) - task.completed)
        estimate = live.run_estimate_s(remaining)
        self.update(self.job, eta="" if estimate is None or not remaining
                    else f"~{duration(estimate)} left")
        if not self.warned and remaining:
            message = long_run_warning(live, remaining)
            if message is not None:
                self.warned = True
                self.console.print(f"[yellow]warning:[/] {message}", highlight=False)

    def episode_lines(self) -> Iterable[Text]:
        """The lines of the running episodes."""
        if self.episodes is None:
            return
        rows = self.episodes.rows()
        for row in rows[:SHOWN]:
            yield Text(episode_line(row, self.episodes.max_turns), style="dim")
        if len(rows) > SHOWN:
            yield Text(f"  ... and {len(rows) - SHOWN} more running", style="dim")

    def get_renderables(self) -> Iterable[RenderableType]:
        """The bar, then the running episodes."""
        yield self.make_tasks_table(self.tasks)
        yield from self.episode_lines()


__all__ = ["LONG_RUN_S", "EvalProgress", "duration", "episode_line", "long_run_warning"]
