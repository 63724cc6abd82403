"""Fork latency against a fresh reset plus a replay of k turns, per env family, in one run.

For each env (SQL, shop, search: forked by copying their state; a text game: forked by replay)
an episode is played for k turns (k = 3 and 6: the same harmless action each turn, so that the
episode stays open), then timed ``--repeats`` times each:

- ``fork``: ``env.fork(1)`` (:func:`agentgym.fork`), the copy in the parent's exact state;
- ``replay``: what a trainer without forking does to get the same state: ``agentgym.make``,
  ``reset`` with the same seed, and the k actions again.

The WebArena twin forks from a snapshot (its sites' session databases copied, the browser's
cookies, tabs, form fields and scroll restored in a fresh context: ``envs/webarena/fork.py``);
its lane needs Chromium, runs ``--web-repeats`` times (``--web-repeats 0`` skips it) and, as
the engine does, forks and replays on one event loop through the async twins, so copies share
the loop's browser (a sync fork on a fresh env's own loop would time a browser launch).

Prints p50 and p90 of each in milliseconds and their ratio per env and k, and last
``fork_vs_replay_p50_ratio=``: the larger of SQL's and the web twin's at k = 6 (a / b: lower is
better for fork; SQL's alone when the web lane is skipped).

    python benchmarks/fork.py [--repeats 30] [--web-repeats 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import agentgym


def call(tool: str, **arguments: Any) -> str:
    """A tool call in the text protocol every task env reads."""
    return f'<tool_call>{{"name": "{tool}", "arguments": {json.dumps(arguments)}}}</tool_call>'


ENVS: dict[str, tuple[str, dict[str, Any], str]] = {
    "sql": ("sql", {}, call("execute_sql", query="SELECT name FROM sqlite_master")),
    "shop": ("shop/price-v0", {"max_turns": 12}, call("calc", expression="2*3")),
    "search": ("search", {"max_turns": 12}, call("search", query="capital city")),
    "textgame (replay)": ("textgames/guess-number-v0", {"max_turns": 12},
                          call("guess", number=0)),
}
"""Label -> (env id, make arguments, the action repeated each turn)."""
WEB = ("webarena-lite", {"split": "test", "max_turns": 12}, "scroll [down]")
"""The twin's lane: a shopping or forum task, scrolled each turn (a snapshot fork)."""


def percentiles(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """p50 and p90 of ``fn()`` in milliseconds (one untimed warm-up first)."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1e3)
        for env in result if isinstance(result, list) else [result]:
            env.close()
    return p50_p90(times)


def p50_p90(times: list[float]) -> tuple[float, float]:
    """Median and 90th percentile of ``times``."""
    times = sorted(times)
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def measure(env_id: str, kwargs: dict[str, Any], action: str, k: int,
            repeats: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """(fork p50, p90), (replay p50, p90) after ``k`` turns."""
    env = agentgym.make(env_id, **kwargs)
    env.reset(seed=0)
    for _ in range(k):
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            raise SystemExit(f"{env_id}: the episode ended before turn {k}")

    def replay() -> Any:
        fresh = agentgym.make(env_id, **kwargs)
        fresh.reset(seed=0)
        for _ in range(k):
            fresh.step(action)
        return fresh

    forked = percentiles(lambda: env.fork(1), repeats)
    replayed = percentiles(replay, repeats)
    (child,) = env.fork(1)
    assert child.unwrapped._last_text == env.unwrapped._last_text  # the same state, checked
    return forked, replayed


def measure_async(env_id: str, kwargs: dict[str, Any], action: str, k: int,
                  repeats: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """As :func:`measure`, on one event loop through the async twins, as the engine runs an
    async-native env (a browser: its copies share the loop's browser, not a new one each)."""

    async def run() -> tuple[tuple[float, float], tuple[float, float]]:
        env = agentgym.make(env_id, **kwargs)
        await env.areset(seed=0)
        for _ in range(k):
            await env.astep(action)

        async def replay() -> Any:
            fresh = await asyncio.to_thread(agentgym.make, env_id, **kwargs)
            await fresh.areset(seed=0)
            for _ in range(k):
                await fresh.astep(action)
            return [fresh]

        async def timed(fn: Callable[[], Any]) -> tuple[float, float]:
            for made in await fn():  # one untimed warm-up
                await made.aclose()
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                made = await fn()
                times.append((time.perf_counter() - t0) * 1e3)
                for child in made:
                    assert child.unwrapped._last_text == env.unwrapped._last_text  # exact
                    await child.aclose()
            return p50_p90(times)

        try:
            forked = await timed(lambda: env.afork(1))
            (child,) = await env.afork(1)
            origin = child.unwrapped.fork_origin
            await child.aclose()
            if origin != "snapshot":
                raise SystemExit(f"{env_id}: forked by {origin}, not from a snapshot")
            return forked, await timed(replay)
        finally:
            await env.aclose()

    return asyncio.run(run())


def main() -> None:
    """Measure every env at k = 3 and 6 and print the table and ratios."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--web-repeats", type=int, default=10)
    args = p.parse_args()
    lanes = {label: (spec, args.repeats) for label, spec in ENVS.items()}
    if args.web_repeats > 0:
        lanes["web twin (snapshot)"] = (WEB, args.web_repeats)
    ratios: dict[tuple[str, int], float] = {}
    print(f"{'env':20s} {'k':>2s} {'fork p50':>10s} {'p90':>8s} {'replay p50':>11s} "
          f"{'p90':>8s} {'ratio':>7s}")
    for label, ((env_id, kwargs, action), repeats) in lanes.items():
        for k in (3, 6):
            run = measure_async if env_id == WEB[0] else measure
            (f50, f90), (r50, r90) = run(env_id, kwargs, action, k, repeats)
            ratios[label, k] = f50 / r50
            print(f"{label:20s} {k:2d} {f50:8.3f}ms {f90:6.3f}ms {r50:9.3f}ms {r90:6.3f}ms "
                  f"{f50 / r50:7.3f}", flush=True)
    print()
    for (label, k), ratio in ratios.items():
        print(f"{label} k={k}: fork_vs_replay_p50_ratio={ratio:.3f}")
    headline = max(v for (label, k), v in ratios.items()
                   if k == 6 and label in ("sql", "web twin (snapshot)"))
    print(f"fork_vs_replay_p50_ratio={headline:.3f}")


if __name__ == "__main__":
    main()
