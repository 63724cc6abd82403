"""Evaluation metrics: success rate with a Wilson interval, unbiased pass@k, run summaries."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from .trajectory import Trajectory

Z_95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default); ``(0, 1)`` when n=0."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples with ``c`` correct: ``1 - C(n-c, k) / C(n, k)``."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    # product form of the binomial ratio, stable for large n (Chen et al. 2021)
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def _ks(k: int) -> list[int]:
    ks, v = [], 1
    while v < k:
        ks.append(v)
        v *= 2
    return [*ks, k]


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def summarize(trajectories: Iterable[Trajectory], k: int | None = None) -> dict[str, Any]:
    """Metrics over a run: success (Wilson 95% CI), mean reward, pass@k, turns, tokens, time.

    Aborted episodes (infrastructure failures: a dead server, a killed container) say nothing
    about the policy: success, its interval, reward, pass@k and turns count completed episodes
    only (``episodes``); ``aborted`` and ``abort_reasons`` report the others beside them, and
    ``total_episodes`` counts both. pass@k uses, per task, every completed sample (tasks with
    fewer than k samples are skipped for that k).
    """
    every = list(trajectories)
    trajs = [t for t in every if not t.aborted]
    n = len(trajs)
    wins = sum(t.success for t in trajs)
    low, high = wilson_interval(wins, n)
    by_task: dict[str | None, list[Trajectory]] = defaultdict(list)
    for t in trajs:
        by_task[t.task_id].append(t)
    k = k or max((len(v) for v in by_task.values()), default=1)
    pass_k = {}
    for kk in _ks(k):
        scores = [
            pass_at_k(len(v), sum(t.success for t in v), kk)
            for v in by_task.values()
            if len(v) >= kk
        ]
        if scores:
            pass_k[f"pass@{kk}"] = _mean(scores)
    return {
        "episodes": n,
        "total_episodes": len(every),
        "tasks": len({t.task_id for t in every}),
        "successes": wins,
        "success_rate": wins / n if n else 0.0,
        "success_ci95": [low, high],
        "mean_reward": _mean([t.reward for t in trajs]),
        "pass_at_k": pass_k,
        "mean_turns": _mean([t.turns for t in trajs]),
        "mean_generated_tokens": _mean([t.num_generated_tokens for t in trajs]),
        "total_generated_tokens": sum(t.num_generated_tokens for t in every),
        "mean_wall_s": _mean([t.timings.get("wall_s", 0.0) for t in trajs]),
        "aborted": sum(t.aborted for t in every),
        "truncated": sum(t.truncated for t in trajs),
        "abort_reasons": sorted({t.reason for t in every if t.aborted}),
    }


def per_task(trajectories: Iterable[Trajectory]) -> list[dict[str, Any]]:
    """One row per task: completed samples, successes, mean reward and turns, aborted ones."""
    by_task: dict[str | None, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        by_task[t.task_id].append(t)
    rows = []
    for task_id, every in sorted(by_task.items(), key=lambda kv: str(kv[0])):
        v = [t for t in every if not t.aborted]
        rows.append({
            "task_id": task_id,
            "samples": len(v),
            "successes": sum(t.success for t in v),
            "mean_reward": _mean([t.reward for t in v]),
            "mean_turns": _mean([t.turns for t in v]),
            "aborted": len(every) - len(v),
        })
    return rows


__all__ = ["pass_at_k", "per_task", "summarize", "wilson_interval"]
