"""Benchmark the web env on MiniWoB++ against BrowserGym's own MiniWoB++ envs.

Run ``python benchmarks/web_env.py`` (``--quick`` for a smaller run, ``--no-browsergym`` to skip
the comparison, ``--json PATH`` to save the figures). Both sides play the same episodes: tasks
``click-test``, ``click-button``, ``focus-text`` and ``click-dialog`` with seeds from 0, each
episode ``hover`` then ``click`` on the task's target (found by the same JavaScript), served by
the same loopback HTTP server from the ``miniwob`` package. Measured per side: reset latency
(new context + page load + episode start + first observation) and step latency (action + wait +
observation) at p50/p95, and episodes per minute with 1, 4 and 8 concurrent episodes.

- Ours: ``miniwob/<task>-v0`` with its default observation (accessibility tree and a PNG
  screenshot of the task area), async envs on one event loop sharing one browser pool; a worker
  keeps one env per task it plays (8 workers hold 8 envs), and each env is reset once before
  the clock starts (steady state: the env prefetches its next episode's context in the
  background, which the back-to-back steps of this benchmark then compete with for the CPU).
- BrowserGym: ``browsergym-miniwob`` 0.14.3 in its own virtual environment under
  ``.cache/browsergym-venv`` (created on first run with its pinned Playwright 1.44), pointed at
  the binary our headless pool runs (Debian's ``chromium-headless-shell`` where installed, the
  counterpart of the old headless mode Playwright 1.44 used) through a symlink at the path its
  Playwright expects (``.cache/ms-playwright/chromium-1117/chrome-linux/chrome``). Its env is
  synchronous, so its concurrency is that many worker processes.

It ends with ``reset_latency_vs_browsergym=<ours p50 / theirs p50>``,
``step_latency_vs_browsergym=<ours p50 / theirs p50>`` and the same step ratio as the headline
``ours_vs_browsergym_step_latency`` (goals: step <= 0.1, reset <= 0.2). Our side runs with the
browser's full egress isolation (each context's refusing proxy, WebRTC off UDP).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from agentgym.envs.web.miniwob import MiniWoBEnv
from agentgym.envs.web.miniwob.server import base_url
from agentgym.sandboxes.browser import BrowserConfig, find_chromium, release_pool, shared_pool

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache"
BG_VENV = CACHE / "browsergym-venv"
BG_BROWSERS = CACHE / "ms-playwright"
BG_PIN = "browsergym-miniwob==0.14.3"
TASKS = ("click-test", "click-button", "focus-text", "click-dialog")
TARGETS = {
    "click-test": "() => document.getElementById('subbtn')",
    "click-button": "() => { const t = (core.getUtterance().match(/\"([^\"]*)\"/) || [])[1];"
                    " return Array.from(document.querySelectorAll('#area button'))"
                    ".find(b => b.textContent.trim() === t); }",
    "focus-text": "() => document.getElementById('tt')",
    "click-dialog": "() => document.querySelector('.ui-dialog-titlebar button')",
}
console = Console(stderr=True)
CONFIG = BrowserConfig(timeout_s=120.0)
"""Patient timeouts: on a loaded 2-core machine a page load can take tens of seconds."""


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(resets: list[float], steps: list[float], wall: float, episodes: int) -> dict[str, Any]:
    """p50/p95 of reset and step latency and episodes per minute."""
    return {"reset_p50": statistics.median(resets), "reset_p95": pct(resets, 0.95),
            "step_p50": statistics.median(steps), "step_p95": pct(steps, 0.95),
            "episodes_per_min": 60.0 * episodes / wall, "episodes": episodes}


# -- ours ------------------------------------------------------------------------------------


async def _our_target(env: MiniWoBEnv, task: str) -> int:
    assert env.session is not None
    res = await env.session.cdp("Runtime.evaluate", {"expression": f"({TARGETS[task]})()"})
    node = await env.session.cdp("DOM.describeNode", {"objectId": res["result"]["objectId"]})
    return env.element_id(int(node["node"]["backendNodeId"]))


async def _our_worker(episodes: list[int], envs: dict[str, MiniWoBEnv],
                      out: dict[str, list[float]], progress: Any, bar: Any) -> None:
    for i in episodes:
        task = TASKS[i % len(TASKS)]
        env = envs[task]
        t = time.perf_counter()
        await env.areset(options={"index": i // len(TASKS)})
        out["reset"].append(time.perf_counter() - t)
        element = await _our_target(env, task)
        reward = 0.0
        for action in (f"hover [{element}]", f"click [{element}]"):
            t = time.perf_counter()
            _, reward, terminated, _, _ = await env.astep(action)
            out["step"].append(time.perf_counter() - t)
            if terminated:
                break
        out["success"].append(float(reward > 0))
        progress.advance(bar)


def assign(episodes: int, concurrency: int) -> list[list[int]]:
    """Episode numbers per worker: a worker keeps to its own tasks (one env each), so that
    8 workers hold 8 envs, as an engine with ``num_envs=8`` does; episode ``i`` plays task
    ``TASKS[i % 4]`` with seed index ``i // 4`` whatever the concurrency."""
    owners = [[k for k in range(concurrency) if k % len(TASKS) == t or concurrency < len(TASKS)
               and t % concurrency == k] for t in range(len(TASKS))]
    shares: list[list[int]] = [[] for _ in range(concurrency)]
    seen = [0] * len(TASKS)
    for i in range(episodes):
        t = i % len(TASKS)
        shares[owners[t][seen[t] % len(owners[t])]].append(i)
        seen[t] += 1
    return shares


async def run_ours(episodes: int, concurrency: int, progress: Any) -> dict[str, Any]:
    """Episodes over ``concurrency`` async workers, each with its own envs, one browser pool.

    Steady state: before timing, each worker resets each of its envs once (the browser
    launches, and every env has had a reset that prefetches its next episode's context)."""
    pool = await shared_pool(CONFIG)  # held so the browser stays up between episodes
    shares = assign(episodes, concurrency)
    workers = [{TASKS[i % len(TASKS)]: MiniWoBEnv(TASKS[i % len(TASKS)], split="test",
                                                  browser=CONFIG) for i in share}
               for share in shares]
    for w in workers:
        for env in w.values():
            await env.areset(options={"index": 0})
    out: dict[str, list[float]] = {"reset": [], "step": [], "success": []}
    bar = progress.add_task(f"ours x{concurrency}", total=episodes)
    t0 = time.perf_counter()
    await asyncio.gather(*(_our_worker(share, w, out, progress, bar)
                           for share, w in zip(shares, workers, strict=True)))
    wall = time.perf_counter() - t0
    for w in workers:
        for env in w.values():
            await env.aclose()
    await release_pool(pool)
    result = summary(out["reset"], out["step"], wall, episodes)
    result["success_rate"] = statistics.mean(out["success"])
    return result


# -- BrowserGym ------------------------------------------------------------------------------


def ensure_browsergym() -> Path:
    """Create BrowserGym's venv (pinned) and the Chromium symlink its Playwright looks for."""
    python = BG_VENV / "bin" / "python"
    if not python.exists():
        console.print(f"creating {BG_VENV} with {BG_PIN} (one time)")
        subprocess.run([sys.executable, "-m", "venv", str(BG_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", BG_PIN], check=True)
    probe = subprocess.run(
        [str(python), "-c", "from playwright.sync_api import sync_playwright as s;"
         "p = s().start(); print(p.chromium.executable_path); p.stop()"],
        env={**os.environ, "PLAYWRIGHT_BROWSERS_PATH": str(BG_BROWSERS)},
        capture_output=True, text=True, check=True)
    expected = Path(probe.stdout.strip())
    chromium = find_chromium(headless=True)  # the very binary agentgym's headless pool runs
    if chromium is None:
        raise SystemExit("Chromium not found")
    if expected.is_symlink() and os.readlink(expected) != chromium:
        expected.unlink()
    if not expected.exists():
        expected.parent.mkdir(parents=True, exist_ok=True)
        expected.symlink_to(chromium)
    return python


def run_browsergym(python: Path, episodes: int, concurrency: int, progress: Any) -> dict[str, Any]:
    """``concurrency`` worker processes, each playing its share of the episodes in order."""
    env = {**os.environ, "PLAYWRIGHT_BROWSERS_PATH": str(BG_BROWSERS),
           "MINIWOB_URL": base_url() + "miniwob/"}
    share = [episodes // concurrency + (1 if k < episodes % concurrency else 0)
             for k in range(concurrency)]
    bar = progress.add_task(f"browsergym x{concurrency}", total=concurrency)
    t0 = time.perf_counter()
    procs = [subprocess.Popen(
        [str(python), str(Path(__file__).with_name("web_env_browsergym.py")), ",".join(TASKS),
         str(n), str(k * 1000), json.dumps(TARGETS)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for k, n in enumerate(share) if n]
    results = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=900)
        if proc.returncode != 0:
            raise SystemExit(f"BrowserGym worker failed:\n{stderr[-2000:]}")
        results.append(json.loads(stdout.strip().splitlines()[-1]))
        progress.advance(bar)
    wall = time.perf_counter() - t0
    resets = [x for r in results for x in r["reset_s"]]
    steps = [x for r in results for x in r["step_s"]]
    failed = [f for r in results for f in r.get("failures", [])]
    out = summary(resets, steps, wall, episodes - len(failed))
    out["success_rate"] = sum(r["successes"] for r in results) / episodes
    out["failed_resets"] = len(failed)
    return out


# -- main ------------------------------------------------------------------------------------


def main() -> None:
    """Run both sides at 1, 4 and 8 concurrent episodes and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer episodes")
    parser.add_argument("--no-browsergym", action="store_true")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    counts = {1: 6, 4: 8, 8: 8} if args.quick else {1: 16, 4: 16, 8: 24}
    bg_counts = {1: 4, 4: 4, 8: 8} if args.quick else {1: 8, 4: 8, 8: 16}
    figures: dict[str, dict[int, dict[str, Any]]] = {"ours": {}, "browsergym": {}}
    python = None if args.no_browsergym else ensure_browsergym()
    def show(side: str, conc: int, f: dict[str, Any]) -> None:
        failed = f.get("failed_resets")
        note = f", {failed} resets failed" if failed else ""
        print(f"{side:10s} x{conc}  reset p50 {f['reset_p50']:.3f}s p95 {f['reset_p95']:.3f}s"
              f"  step p50 {f['step_p50']:.3f}s p95 {f['step_p95']:.3f}s"
              f"  {f['episodes_per_min']:.1f} episodes/min"
              f"  success {f['success_rate']:.0%} ({f['episodes']} episodes"
              f"{note})",
              flush=True)

    with Progress(console=console, transient=True) as progress:
        for conc, n in counts.items():
            figures["ours"][conc] = asyncio.run(run_ours(n, conc, progress))
            show("ours", conc, figures["ours"][conc])
        if python is not None:
            for conc, n in bg_counts.items():
                figures["browsergym"][conc] = run_browsergym(python, n, conc, progress)
                show("browsergym", conc, figures["browsergym"][conc])
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    if python is not None:
        ours, theirs = figures["ours"][1], figures["browsergym"][1]
        per_min = figures["ours"][8]["episodes_per_min"] / figures["browsergym"][8][
            "episodes_per_min"]
        print(f"episodes_per_min_x8_vs_browsergym={per_min:.2f}")
        step = ours["step_p50"] / theirs["step_p50"]
        print(f"reset_latency_vs_browsergym={ours['reset_p50'] / theirs['reset_p50']:.3f}")
        print(f"step_latency_vs_browsergym={step:.3f}")
        print(f"ours_vs_browsergym_step_latency={step:.3f}")  # the headline, last


if __name__ == "__main__":
    main()
