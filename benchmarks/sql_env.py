"""Benchmark the SQL family: executor strategies, gold queries, evaluator and env episodes.

Run ``python benchmarks/sql_env.py`` (add ``--postgres "host=... user=agentgym_ro ..."`` to
include a PostgreSQL server loaded with :mod:`agentgym.envs.sql.pgload`). Prints one line per
measurement and, with ``--json PATH``, writes the numbers as JSON.

Executor strategies compared (SQLite, same guards in all three):

- ``per-call``: open, harden and close a connection for every query;
- ``shared``: one cached connection (``check_same_thread=False``) that threads take in turn
  (a pool of size 1, the same as a lock around one connection);
- ``pool``: a bounded pool of cached connections, one per concurrent query (the default of
  :class:`SqliteExecutor`, 8 connections).

The last line compares the env with raw ``sqlite3`` on the same queries (every gold query, each
as one ``execute_sql`` step of the env vs ``conn.execute(q).fetchall()`` on a plain read-only
connection): ``sql_env_vs_raw_sqlite_steps_ratio=<env steps/s / raw queries/s>`` (goal >= 0.9).
A few heavy queries dominate that total; ``light_queries_ratio`` is the same ratio over the
queries that take raw sqlite3 under 50 ms, where the env's fixed cost per step shows.
The env's step includes parsing the tool call, the guards (authorizer, work budget), the capped
fetch and rendering the rows for the model.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

import agentgym
from agentgym import ToolCall
from agentgym.envs.sql import (
    ExecutionLimits,
    PostgresExecutor,
    SQLError,
    SqliteExecutor,
    database_path,
    order_matters,
    results_match,
)
from agentgym.envs.sql.env import GOLD_TIMEOUT_S
from agentgym.envs.sql.tasks import read_tasks

LIGHT = "SELECT COUNT(*) FROM customers WHERE city = 'Osaka'"
HEAVY = ("SELECT COUNT(*) FROM order_items a JOIN order_items b ON a.product_id = b.product_id "
         "WHERE a.quantity + b.quantity > 3")


def per_call(sql: str = LIGHT) -> Any:
    """Open a fresh executor (and connection) for one query."""
    with SqliteExecutor(database_path("store")) as executor:
        return executor.execute(sql)


def rate(fn: Callable[[], Any], seconds: float, threads: int) -> float:
    """Calls per second of ``fn`` run in a loop by ``threads`` threads for ``seconds``."""
    counts = [0] * threads
    stop = time.monotonic() + seconds

    def loop(i: int) -> None:
        while time.monotonic() < stop:
            fn()
            counts[i] += 1

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    started = time.monotonic()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(counts) / (time.monotonic() - started)


def executor_strategies(seconds: float, thread_counts: list[int]) -> dict[str, float]:
    """Queries/s of a light (index-free count) and a heavy (self-join) query per strategy."""
    shared = SqliteExecutor(database_path("store"), max_connections=1)
    pooled = SqliteExecutor(database_path("store"))
    out = {}
    for label, sql in (("light", LIGHT), ("heavy", HEAVY)):
        for threads in thread_counts:
            key = f"{label} x{threads}"
            out[f"per-call {key}"] = rate(lambda q=sql: per_call(q), seconds, threads)
            out[f"shared {key}"] = rate(lambda q=sql: shared.execute(q), seconds, threads)
            out[f"pool {key}"] = rate(lambda q=sql: pooled.execute(q), seconds, threads)
    return out


def gold_queries(make: Callable[[str], Any]) -> dict[str, float]:
    """Run every gold query once; return queries/s and the median and max latency in ms."""
    tasks = read_tasks()
    executors: dict[str, Any] = {}
    latencies = []
    for task in tasks:
        executor = executors.setdefault(task["db_id"], make(task["db_id"]))
        started = time.perf_counter()
        executor.execute(task["gold_sql"])
        latencies.append(time.perf_counter() - started)
    for executor in executors.values():
        executor.close()
    return {
        "queries_per_s": len(tasks) / sum(latencies),
        "median_ms": statistics.median(latencies) * 1000,
        "max_ms": max(latencies) * 1000,
    }


def evaluator_rate(seconds: float) -> float:
    """results_match calls/s comparing each gold result with a column-reversed copy."""
    pairs = []
    for task in read_tasks()[::4]:
        with SqliteExecutor(database_path(task["db_id"])) as executor:
            gold = executor.execute(task["gold_sql"])
        pred = type(gold)(gold.columns[::-1], tuple(row[::-1] for row in gold.rows))
        pairs.append((gold, pred, order_matters(task["gold_sql"])))
    index = iter(range(10**12))

    def one() -> None:
        gold, pred, ordered = pairs[next(index) % len(pairs)]
        if not results_match(gold, pred, order_matters=ordered):
            raise AssertionError("evaluator rejected a column permutation")

    return rate(one, seconds, 1)


def env_episodes(split: str = "train", episodes: int = 200) -> float:
    """Expert episodes per second (reset, execute_sql, submit)."""
    env = agentgym.make("sql", split=split)
    tasks = list(env.unwrapped.task_set)
    started = time.perf_counter()
    for i in range(episodes):
        task = tasks[i % len(tasks)]
        env.reset(options={"task_id": task.task_id})
        for action in env.unwrapped.expert_actions(task):
            env.step(action)
    env.close()
    return episodes / (time.perf_counter() - started)


def env_vs_raw(rounds: int = 3) -> dict[str, float]:
    """Env ``execute_sql`` steps/s and raw sqlite3 queries/s over every gold query (train).

    Each query runs ``rounds`` times on each side, interleaved, after one warm-up each; the
    fastest time per query and side counts (the usual way to keep other load out of a figure).
    """
    env = agentgym.make("sql", split="train")
    tasks = list(env.unwrapped.task_set)
    raw_conns = {
        t.data["db_id"]: sqlite3.connect(
            f"file:{database_path(t.data['db_id'])}?mode=ro&immutable=1", uri=True,
            check_same_thread=False)
        for t in tasks
    }  # fmt: skip
    env_s = raw_s = light_env_s = light_raw_s = 0.0
    overheads = []
    for task in tasks:
        sql = task.data["gold_sql"]
        conn = raw_conns[task.data["db_id"]]
        env.reset(options={"task_id": task.task_id})
        call = [ToolCall("execute_sql", {"query": sql})]
        conn.execute(sql).fetchall()  # both sides warm: page cache, compiled statement
        env.step(call)
        raw_best = stepped_best = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            conn.execute(sql).fetchall()
            raw_best = min(raw_best, time.perf_counter() - started)
            started = time.perf_counter()
            _, _, _, _, info = env.step(call)
            stepped_best = min(stepped_best, time.perf_counter() - started)
            if info.get("error"):
                raise RuntimeError(f"{task.task_id}: {info['error']}")
        raw_s, env_s = raw_s + raw_best, env_s + stepped_best
        if raw_best < 0.05:
            light_raw_s, light_env_s = light_raw_s + raw_best, light_env_s + stepped_best
        overheads.append((stepped_best - raw_best) * 1e6)
    env.close()
    for conn in raw_conns.values():
        conn.close()
    return {
        "queries": len(tasks),
        "env_steps_per_s": len(tasks) / env_s,
        "raw_sqlite_queries_per_s": len(tasks) / raw_s,
        "median_overhead_us": statistics.median(overheads),
        "light_queries_ratio": light_raw_s / light_env_s,
    }


def timeout_overshoot(timeout_s: float = 0.2, runs: int = 5) -> float:
    """Worst seconds past the deadline when interrupting an endless recursive CTE."""
    worst = 0.0
    with SqliteExecutor(database_path("store"), ExecutionLimits(timeout_s=timeout_s)) as ex:
        for _ in range(runs):
            started = time.monotonic()
            try:
                ex.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                           "SELECT COUNT(*) FROM c")
            except SQLError:
                pass
            worst = max(worst, time.monotonic() - started - timeout_s)
    return worst


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks and print (and optionally save) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per rate measure")
    parser.add_argument("--threads", default="1,4", help="thread counts, comma-separated")
    parser.add_argument("--postgres", default="", help="libpq string of the read-only role")
    parser.add_argument("--json", default="", help="write the figures to this JSON file")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs per query and side")
    parser.add_argument("--only-ratio", action="store_true", help="measure only env vs raw")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {}
    if args.only_ratio:
        figures["env_vs_raw"] = env_vs_raw(args.rounds)
        ratio = figures["env_vs_raw"]["env_steps_per_s"] / figures["env_vs_raw"][
            "raw_sqlite_queries_per_s"]  # fmt: skip
        for name, number in figures["env_vs_raw"].items():
            print(f"{'env_vs_raw':26s} {name:26s} {number:12.1f}")
        print(f"sql_env_vs_raw_sqlite_steps_ratio={ratio:.3f}")
        return 0
    figures["executor_qps"] = executor_strategies(
        args.seconds, [int(n) for n in args.threads.split(",")]
    )
    gold_limits = ExecutionLimits(timeout_s=GOLD_TIMEOUT_S)  # as the env runs gold queries
    figures["gold_sqlite"] = gold_queries(
        lambda db: SqliteExecutor(database_path(db), gold_limits))
    if args.postgres:
        figures["gold_postgres"] = gold_queries(lambda db: PostgresExecutor(args.postgres, db))
    figures["evaluator_per_s"] = evaluator_rate(args.seconds)
    figures["env_expert_episodes_per_s"] = env_episodes()
    figures["timeout_overshoot_s"] = timeout_overshoot()
    figures["env_vs_raw"] = env_vs_raw(args.rounds)
    for key, value in figures.items():
        if isinstance(value, dict):
            for name, number in value.items():
                print(f"{key:26s} {name:26s} {number:12.1f}")
        else:
            print(f"{key:26s} {'':26s} {value:12.3f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2, sort_keys=True)
    ratio = figures["env_vs_raw"]["env_steps_per_s"] / figures["env_vs_raw"][
        "raw_sqlite_queries_per_s"]  # fmt: skip
    print(f"sql_env_vs_raw_sqlite_steps_ratio={ratio:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
