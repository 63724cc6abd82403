"""GUI env latency: reset and step (action + screenshot) for the local and VNC backends, and how
many desktops this machine sustains at once with step p95 <= 1 s.

A step is one ``MOVE_TO`` + ``CLICK`` on an empty spot of the todo app followed by the PNG
screenshot and the text observation (cursor, window list, widgets), exactly what an agent pays
per turn. Concurrency: N env instances (each its own Xvfb) step in N threads at once; N grows
1, 2, 4, 6, 8 until p95 passes the budget.

The cost of the containment (every app and the window manager in bubblewrap as the desktop's
own uid, Xvfb with a cookie; see docs/gui.md, "Containment") is measured side by side in the
same run: the local backend once more with the jail turned off (``isolate_apps=False``, a
debugging mode never offered to a model).

Usage::

    python benchmarks/gui_env.py [--steps 20] [--resets 3] [--max-desktops 8] [--json out.json]

The figure lines name their unit; ``gui_step_p50_s=`` is the local backend's (jailed) step p50
and the last line ``jailed_vs_unjailed_step_p50_ratio=`` the containment's cost per step.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import agentgym
from agentgym.envs.gui.env import DesktopEnv
from agentgym.sandboxes.desktop import DesktopConfig

TASK = "todo-add-0"
UNJAILED = "gui/desktop-v0 (no jail)"


class UnjailedDesktopEnv(DesktopEnv):
    """The local-backend env with the jail off: the baseline of the containment's cost."""

    def _desktop_config(self) -> DesktopConfig:
        return replace(super()._desktop_config(), isolate_apps=False)


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def step_action(i: int) -> str:
    """A click on a blank part of the todo window, varied a little."""
    return json.dumps([{"action_type": "MOVE_TO", "x": 380 + i % 5, "y": 300 + i % 7},
                       {"action_type": "CLICK", "x": 380 + i % 5, "y": 300 + i % 7}])


def measure_backend(env_id: str, resets: int, steps: int, progress: Progress) -> dict[str, Any]:
    """Reset and step latencies of one env id."""
    env = (UnjailedDesktopEnv(split="train") if env_id == UNJAILED
           else agentgym.make(env_id, split="train"))
    reset_s, step_s = [], []
    job = progress.add_task(env_id, total=resets + steps)
    try:
        t0 = time.perf_counter()
        env.reset(options={"task_id": TASK})
        first_reset = time.perf_counter() - t0
        for _ in range(resets):
            t0 = time.perf_counter()
            env.reset(options={"task_id": TASK})
            reset_s.append(time.perf_counter() - t0)
            progress.advance(job)
        for i in range(steps):
            t0 = time.perf_counter()
            env.unwrapped.step(step_action(i))
            step_s.append(time.perf_counter() - t0)
            progress.advance(job)
    finally:
        env.close()
    return {"env": env_id, "first_reset_s": first_reset, "reset_p50_s": pct(reset_s, 0.5),
            "step_p50_s": pct(step_s, 0.5), "step_p95_s": pct(step_s, 0.95)}


def measure_concurrency(n: int, steps: int) -> float:
    """Step p95 with ``n`` desktops stepping at once."""
    envs = [agentgym.make("gui/desktop-v0", split="train") for _ in range(n)]
    try:
        with ThreadPoolExecutor(n) as pool:
            list(pool.map(lambda e: e.reset(options={"task_id": TASK}), envs))

            def run(env: Any) -> list[float]:
                out = []
                for i in range(steps):
                    t0 = time.perf_counter()
                    env.unwrapped.step(step_action(i))
                    out.append(time.perf_counter() - t0)
                return out

            times = [t for ts in pool.map(run, envs) for t in ts]
    finally:
        for env in envs:
            env.close()
    return pct(times, 0.95)


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--resets", type=int, default=3)
    parser.add_argument("--max-desktops", type=int, default=8)
    parser.add_argument("--budget-s", type=float, default=1.0)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    console = Console()
    results: dict[str, Any] = {}
    with Progress(console=console, transient=True) as progress:
        for env_id in ("gui/desktop-v0", UNJAILED, "gui/desktop-vnc-v0"):
            results[env_id] = measure_backend(env_id, args.resets, args.steps, progress)
        sustained, curve = 0, {}
        job = progress.add_task("concurrent desktops", total=None)
        for n in (1, 2, 4, 6, 8):
            if n > args.max_desktops:
                break
            p95 = measure_concurrency(n, max(5, args.steps // 2))
            curve[n] = p95
            progress.update(job, description=f"{n} desktops: step p95 {p95:.2f} s")
            if p95 > args.budget_s:
                break
            sustained = n
    table = Table(title="GUI env latency (seconds)")
    for col in ("env", "first reset", "reset p50", "step p50", "step p95"):
        table.add_column(col)
    for r in results.values():
        table.add_row(r["env"], f"{r['first_reset_s']:.2f}", f"{r['reset_p50_s']:.2f}",
                      f"{r['step_p50_s']:.3f}", f"{r['step_p95_s']:.3f}")
    console.print(table)
    for n, p95 in curve.items():
        console.print(f"concurrent_desktops={n} step_p95_s={p95:.3f}")
    local, vnc = results["gui/desktop-v0"], results["gui/desktop-vnc-v0"]
    bare = results[UNJAILED]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backends": results, "concurrency_p95_s": curve,
                       "sustained_desktops": sustained}, f, indent=2)
    print(f"local_reset_p50_s={local['reset_p50_s']:.3f}")
    print(f"local_step_p95_s={local['step_p95_s']:.3f}")
    print(f"vnc_reset_p50_s={vnc['reset_p50_s']:.3f}")
    print(f"vnc_step_p50_s={vnc['step_p50_s']:.3f}")
    print(f"vnc_step_p95_s={vnc['step_p95_s']:.3f}")
    print(f"max_desktops_at_step_p95_le_{args.budget_s:g}s={sustained}")
    print(f"vnc_vs_local_step_p50_ratio={vnc['step_p50_s'] / local['step_p50_s']:.3f}")
    print(f"unjailed_reset_p50_s={bare['reset_p50_s']:.3f}")
    print(f"unjailed_step_p50_s={bare['step_p50_s']:.3f}")
    print(f"jailed_vs_unjailed_reset_p50_ratio={local['reset_p50_s'] / bare['reset_p50_s']:.3f}")
    print(f"gui_step_p50_s={local['step_p50_s']:.3f}")
    print(f"jailed_vs_unjailed_step_p50_ratio={local['step_p50_s'] / bare['step_p50_s']:.3f}")


if __name__ == "__main__":
    main()
