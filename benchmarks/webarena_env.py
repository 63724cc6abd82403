"""Benchmark ``webarena-lite`` on the bundled sites: reset and step latency, episodes per minute.

Run ``python benchmarks/webarena_env.py`` (``--resets 40 --steps 60 --episodes 8``). It starts
the bundled sites (a private runtime folder) and measures, with real Chromium:

- reset latency: a fresh site state (new session: database copies on first request) plus a
  cleared browser context (``reuse_context``, the env's default, as in training: a new tab,
  cookies, cache and the sites' storage cleared), login where the task needs it, the start page
  and the first observation;
- step latency: one ``click`` on a link (a page load) or ``goto``, with the observation;
- episodes per minute with 1, 4 and 8 concurrent episodes, each the scripted expert of a test
  task (3 to 7 steps, about half of them state changes).

The last line is ``webarena_reset_p50_s=<seconds>`` (goal <= 0.3 s on a quiet machine; the
machine's load average is printed, since other jobs on the same cores slow every figure).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from agentgym.envs.webarena.env import WebArenaEnv
from agentgym.envs.webarena.sites.server import ensure_sites, stop_sites
from agentgym.envs.webarena.tasks import load_tasks

console = Console()


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def sample_tasks(n: int) -> list[str]:
    """``n`` test task ids spread over the templates."""
    tasks = list(load_tasks().split("test"))
    step = max(1, len(tasks) // n)
    return [t.task_id for t in tasks[::step][:n]]


async def measure_latency(resets: int, steps: int, progress: Progress) -> dict[str, Any]:
    """Reset and step latencies of one env."""
    env = WebArenaEnv("test")
    ids = sample_tasks(resets)
    reset_s, step_s = [], []
    bar = progress.add_task("reset/step latency", total=resets + steps)
    try:
        await env.areset(options={"task_id": ids[0]})  # browser launch, sites warm-up
        for tid in ids:
            t = time.perf_counter()
            obs, _ = await env.areset(options={"task_id": tid})
            reset_s.append(time.perf_counter() - t)
            progress.advance(bar)
        home = env.site_urls["shopping"]
        await env.areset(options={"task_id": ids[0]})
        for i in range(steps):
            if i % 2:
                action = f"goto [{home}/category/beauty?page={1 + i % 4}]"
            else:
                line = next(ln for ln in obs["text"].splitlines() if " link '" in ln)
                action = f"click [{line.split('[', 1)[1].split(']', 1)[0]}]"
            t = time.perf_counter()
            obs, *_ = await env.astep(action)
            step_s.append(time.perf_counter() - t)
            progress.advance(bar)
    finally:
        await env.aclose()
    return {"reset_p50_s": pct(reset_s, 0.5), "reset_p95_s": pct(reset_s, 0.95),
            "step_p50_s": pct(step_s, 0.5), "step_p95_s": pct(step_s, 0.95)}


async def expert_episode(env: WebArenaEnv, task_id: str) -> float:
    """One scripted-expert episode; its reward."""
    obs, _ = await env.areset(options={"task_id": task_id})
    assert env.task is not None  # noqa: S101
    for step in env.expert_actions(env.task) or []:
        obs, reward, done, _, _ = await env.astep(step(obs["text"]))
        if done:
            return reward
    return 0.0


async def throughput(concurrency: int, episodes: int, progress: Progress) -> dict[str, float]:
    """Episodes per minute with ``concurrency`` envs working through ``episodes`` tasks."""
    ids = sample_tasks(episodes)
    queue: asyncio.Queue[str] = asyncio.Queue()
    for tid in ids:
        queue.put_nowait(tid)
    bar = progress.add_task(f"{concurrency} concurrent", total=len(ids))
    rewards: list[float] = []

    async def worker() -> None:
        env = WebArenaEnv("test")
        try:
            while not queue.empty():
                tid = queue.get_nowait()
                rewards.append(await expert_episode(env, tid))
                progress.advance(bar)
        finally:
            await env.aclose()

    t = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    minutes = (time.perf_counter() - t) / 60
    return {"episodes_per_min": len(ids) / minutes, "success": sum(rewards) / len(rewards)}


async def main(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"load_average": os.getloadavg(), "cpus": os.cpu_count()}
    with Progress(console=console, transient=True) as progress:
        results.update(await measure_latency(args.resets, args.steps, progress))
        for c in (1, 4, 8):
            results[f"concurrent_{c}"] = await throughput(c, max(args.episodes, c), progress)
    return results


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resets", type=int, default=30)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="webarena-bench-"))
    os.environ["AGENTGYM_WEBARENA_RUNTIME"] = str(folder)
    ensure_sites(folder)
    try:
        results = asyncio.run(main(args))
    finally:
        stop_sites(folder)
    la = results["load_average"]
    console.print(f"machine: {results['cpus']} cpus, load average {la[0]:.1f} {la[1]:.1f}")
    console.print(f"reset p50 {results['reset_p50_s']:.3f} s, p95 {results['reset_p95_s']:.3f} s")
    console.print(f"step  p50 {results['step_p50_s']:.3f} s, p95 {results['step_p95_s']:.3f} s")
    for c in (1, 4, 8):
        r = results[f"concurrent_{c}"]
        console.print(f"{c} concurrent: {r['episodes_per_min']:.1f} episodes/min "
                      f"(expert success {r['success']:.0%})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(f"webarena_reset_p50_s={results['reset_p50_s']:.3f}")


if __name__ == "__main__":
    run()
