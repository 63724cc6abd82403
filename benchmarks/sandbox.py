"""Sandbox latency and throughput: Docker warm pool (resident run server) vs ``docker exec`` into
a pooled container vs a cold container per call vs bubblewrap.

Two workloads: a trivial snippet (``print(1)``) and a task-like test run (a small function and
eight asserts, as the code env's hidden tests run). For each backend it reports p50/p95 latency
of sequential runs, sequential runs/s, and runs/s with ``--concurrency`` workers. Figure lines
follow, each named with its unit; every ratio is ``a_vs_b_<what>=a/b`` (``..._p50_ratio`` is
p50 latency of a over p50 latency of b, so below 1 means a is faster).

Then the code env's scorer, old and new side by side on Docker warm and bubblewrap: scoring the
reference solution of a bundled task on its hidden tests, end to end (files, sandbox run, report),
with the new harness (the runner calls the solution, the checks run on the host:
``CodeEnv.evaluate``) and the old one (tests and report inside the solution's process, kept in
``envs/code/_old_harness.py`` for this benchmark only). Old and new runs alternate on the same
sandbox so both see the same load. The last line is ``new_vs_old_harness_docker_warm_p50=``
(p50 of new over p50 of old; below 1 means the new harness is faster).

Usage::

    scripts/start_dockerd.sh && scripts/build_sandbox_image.sh
    python benchmarks/sandbox.py [--runs 40] [--cold-runs 6] [--concurrency 2] [--json out.json]
    python benchmarks/sandbox.py --workloads harness --backends "docker warm,bubblewrap"

Backends that cannot run here (no engine, no bwrap) are reported as skipped.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from agentgym.sandbox import Sandbox, SandboxUnavailable

TRIVIAL = "print(1)"
TASK = '''
def run_length(s: str) -> list[tuple[str, int]]:
    """Run-length encode a string."""
    out: list[tuple[str, int]] = []
    for ch in s:
        if out and out[-1][0] == ch:
            out[-1] = (ch, out[-1][1] + 1)
        else:
            out.append((ch, 1))
    return out

assert run_length("") == []
assert run_length("a") == [("a", 1)]
assert run_length("aa") == [("a", 2)]
assert run_length("ab") == [("a", 1), ("b", 1)]
assert run_length("aab") == [("a", 2), ("b", 1)]
assert run_length("abb") == [("a", 1), ("b", 2)]
assert run_length("aaabccdddd") == [("a", 3), ("b", 1), ("c", 2), ("d", 4)]
assert run_length("x" * 1000) == [("x", 1000)]
print("8 passed")
'''
WORKLOADS = {"print(1)": (TRIVIAL, "1\n"), "task test run": (TASK, "8 passed\n")}


@dataclass
class Row:
    """Figures of one backend on one workload."""

    backend: str
    workload: str
    runs: int
    p50_ms: float
    p95_ms: float
    seq_runs_per_s: float
    conc_runs_per_s: float


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _opener(name: str) -> Callable[[], Sandbox]:
    if name == "bubblewrap":
        from agentgym.sandboxes.bubblewrap import BubblewrapSandbox

        return BubblewrapSandbox
    from agentgym.sandboxes.docker import DockerSandbox

    mode = name.split()[-1]
    return lambda: DockerSandbox(mode=mode, pool_size=2, concurrency=2)


def _measure(
    box: Sandbox, code: str, expected: str, runs: int, workers: int, tick: Callable[[], None]
) -> tuple[list[float], float, float]:
    def one() -> float:
        start = time.perf_counter()
        result = box.run_python(code)
        elapsed = time.perf_counter() - start
        if result.stdout != expected:
            raise RuntimeError(f"{box.name}: unexpected result {result.summary()} {result.stderr}")
        tick()
        return elapsed

    one()  # warm-up: fills the pool, caches the image
    start = time.perf_counter()
    latencies = [one() for _ in range(runs)]
    sequential = runs / (time.perf_counter() - start)
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda _: one(), range(runs)))
    concurrent = runs / (time.perf_counter() - start)
    return latencies, sequential, concurrent


HARNESS_TASK = "code-0115"
"""The default task of the harness workload: the bundled task with the largest results (about
30 kB of inputs and 30 kB of return values per scoring), the new harness's worst case."""
HARNESS_BACKENDS = ("docker warm", "bubblewrap")


def _harness_scorers(box: Sandbox, task_id: str) -> dict[str, Callable[[], None]]:
    """One scoring of the reference solution with the old and with the new harness."""
    from agentgym.envs.code._old_harness import _old_harness_files, _old_parse_report
    from agentgym.envs.code.env import PER_TEST_S, TEST_LIMITS, CodeEnv, load_tasks, task_cases

    task = load_tasks().get(task_id)
    code, tests = task.data["canonical_solution"], list(task.data["hidden_tests"])
    cases, entry = task_cases(task, "hidden"), task.data["entry_point"]
    env = CodeEnv(sandbox=box.name)
    env._sandbox = box  # score on the benchmark's sandbox

    def old() -> None:
        files, marker = _old_harness_files(code, tests)
        result = box.run(["python3", "harness.py", marker, str(PER_TEST_S)], files=files,
                         limits=TEST_LIMITS)  # fmt: skip
        report = _old_parse_report(result.stdout, marker, tests, result.summary())
        if report.passed != len(tests):
            raise RuntimeError(f"old harness: {report}")

    def new() -> None:
        report = env.evaluate(code, cases, entry)
        if report.passed != report.total:
            raise RuntimeError(f"new harness: {report}")

    return {"harness old": old, "harness new": new}


def _measure_harness(
    box: Sandbox, task_id: str, runs: int, tick: Callable[[], None]
) -> dict[str, list[float]]:
    """Latencies of the old and new harness, alternating (and swapping the order each round)."""
    scorers = _harness_scorers(box, task_id)
    for score in scorers.values():
        score()  # warm-up
    latencies: dict[str, list[float]] = {name: [] for name in scorers}
    for i in range(runs):
        for name in sorted(scorers, reverse=bool(i % 2)):
            start = time.perf_counter()
            scorers[name]()
            latencies[name].append(time.perf_counter() - start)
            tick()
    return latencies


def main() -> None:
    """Run the benchmark and print the table and the ratio lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="runs per backend and workload")
    parser.add_argument("--cold-runs", type=int, default=6, help="runs for docker cold")
    parser.add_argument("--concurrency", type=int, default=2, help="workers for runs/s")
    parser.add_argument("--backends", default="docker warm,docker exec,docker cold,bubblewrap")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--workloads", default="snippets,harness",
                        help="snippets (print(1), task test run) and/or harness (old vs new)")
    parser.add_argument("--harness-task", default=HARNESS_TASK,
                        help="the bundled task the harness workload scores")
    args = parser.parse_args()
    workloads = {w.strip() for w in args.workloads.split(",")}
    logging.basicConfig(level=logging.WARNING)
    console = Console()
    console.width = max(console.width, 110)  # keep the table on one line per row in logs
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    rows: list[Row] = []
    with Progress(console=console, transient=True) as progress:
        for backend in backends:
            runs = args.cold_runs if backend == "docker cold" else args.runs
            try:
                box = _opener(backend)()
            except SandboxUnavailable as e:
                console.print(f"[yellow]skipped {backend}: {e}")
                continue
            for workload, (code, expected) in WORKLOADS.items():
                if "snippets" not in workloads:
                    break
                task = progress.add_task(f"{backend}: {workload}", total=2 * runs + 1)
                lat, seq, conc = _measure(
                    box, code, expected, runs, args.concurrency,
                    lambda task=task: progress.advance(task),
                )  # fmt: skip
                rows.append(Row(backend, workload, runs, 1000 * statistics.median(lat),
                                1000 * _percentile(lat, 0.95), seq, conc))  # fmt: skip
            if "harness" in workloads and backend in HARNESS_BACKENDS:
                task = progress.add_task(f"{backend}: harness old vs new", total=2 * runs)
                by_name = _measure_harness(box, args.harness_task, runs,
                                           lambda task=task: progress.advance(task))  # fmt: skip
                for name, lat in by_name.items():
                    p50, p95 = 1000 * statistics.median(lat), 1000 * _percentile(lat, 0.95)
                    rows.append(Row(backend, name, runs, p50, p95, len(lat) / sum(lat), 0.0))
            box.close()
    from agentgym.sandboxes import shutdown_pools

    shutdown_pools()
    _report(console, rows, args.concurrency)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) for r in rows], f, indent=2)


def _report(console: Console, rows: list[Row], workers: int) -> None:
    table = Table(title="Sandbox latency (sequential) and throughput")
    for column in ("backend", "workload", "runs", "p50 ms", "p95 ms", "runs/s (1 worker)",
                   f"runs/s ({workers} workers)"):  # fmt: skip
        table.add_column(column, justify="left" if column in ("backend", "workload") else "right")
    for r in rows:
        table.add_row(r.backend, r.workload, str(r.runs), f"{r.p50_ms:.1f}", f"{r.p95_ms:.1f}",
                      f"{r.seq_runs_per_s:.1f}",
                      f"{r.conc_runs_per_s:.1f}" if r.conc_runs_per_s else "-")  # fmt: skip
    console.print(table)
    by = {(r.backend, r.workload): r for r in rows}
    lines = []
    for workload, tag in (("task test run", "task_"), ("print(1)", "")):
        warm, cold = by.get(("docker warm", workload)), by.get(("docker cold", workload))
        execd, bwrap = by.get(("docker exec", workload)), by.get(("bubblewrap", workload))
        for name, row in (("docker_warm", warm), ("docker_exec", execd), ("bubblewrap", bwrap)):
            if row:
                lines.append(f"{name}_{tag}p50_ms={row.p50_ms:.1f}")
                lines.append(f"{name}_{tag}runs_per_s={row.conc_runs_per_s:.1f}")
        for a, b, ra, rb in (("docker_warm", "docker_exec", warm, execd),
                             ("docker_warm", "bubblewrap", warm, bwrap),
                             ("docker_warm", "docker_cold", warm, cold)):  # fmt: skip
            if ra and rb:
                lines.append(f"{a}_vs_{b}_{tag}p50_ratio={ra.p50_ms / rb.p50_ms:.3f}")
    ratios = []
    for backend in HARNESS_BACKENDS:
        old, new = by.get((backend, "harness old")), by.get((backend, "harness new"))
        tag = backend.replace(" ", "_")
        if old and new:
            lines.append(f"{tag}_harness_old_p50_ms={old.p50_ms:.1f}")
            lines.append(f"{tag}_harness_new_p50_ms={new.p50_ms:.1f}")
            ratios.append(f"new_vs_old_harness_{tag}_p50={new.p50_ms / old.p50_ms:.3f}")
    lines += sorted(ratios)  # bubblewrap first: the docker warm ratio is the last line
    for line in lines:
        console.print(line, highlight=False)

if __name__ == "__main__":
    main()
