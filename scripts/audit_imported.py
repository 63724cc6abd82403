"""Audit every task of an importer with ``check_rewards`` and print the table docs/interop.md holds.

    .venv/bin/python scripts/audit_imported.py reasoning-gym [--seeds 3] [--out audit.md]

For each task: the do-nothing mean reward, the probes that earned more (with their mean), and
the same audit with ``reward="exact"`` (the fix the audit suggests for scorers that pay partial
credit). A task whose generator or scorer fails is listed with its error, never skipped.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import Any


class AuditTimeout(BaseException):
    """One task's audit ran past ``--task-timeout`` (a BaseException: ``check_rewards``
    reports a probe's ``Exception`` and goes on, which must not swallow the timeout)."""


def _alarm(signum: int, frame: Any) -> None:
    raise AuditTimeout


def _audit(env_id: str, seeds: int, timeout_s: int, **kwargs: Any) -> tuple[str, str, float]:
    """(verdict, failed probes, baseline) of one env."""
    from agentgym.testing.rewards import check_rewards

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout_s)
    try:
        result = check_rewards(env_id, seeds=seeds, **kwargs)
    finally:
        signal.alarm(0)
    failed = ", ".join(f"{p.name} {p.mean_reward:.3f}" for p in result.failures)
    return ("ok" if result.passed else "FAIL"), failed, result.baseline


def _isolated(args: argparse.Namespace, names: list[str]) -> int:
    """Run every task as ``--only NAME`` in a child process; print the same table."""
    import subprocess

    rows = [HEADER, "|---|---|---|---|---|"]
    for i, name in enumerate(names):
        cmd = [sys.executable, __file__, args.source, "--only", name, "--seeds", str(args.seeds),
               "--train-size", str(args.train_size), "--task-timeout", str(args.task_timeout)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=2 * args.task_timeout + 60)
            found = [line for line in done.stdout.splitlines() if line.startswith(f"| {name} |")]
            rows.append(found[0] if found else
                        f"| {name} | - | error: the child exited {done.returncode} | error | - |")
        except subprocess.TimeoutExpired:
            rows.append(f"| {name} | - | timeout: killed after {2 * args.task_timeout + 60} s "
                        "| timeout | - |")
        print(f"[{i + 1}/{len(names)}] {rows[-1]}", file=sys.stderr, flush=True)
    verdicts = [row.split("|")[4].strip() for row in rows[2:]]
    summary = (f"{len(names)} tasks: {verdicts.count('ok')} ok, {verdicts.count('FAIL')} pay a "
               f"degenerate policy, {verdicts.count('error')} could not run, "
               f"{verdicts.count('timeout')} timed out")
    table = "\n".join([*rows, "", summary])
    print(table)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(table + "\n")
    return 0


HEADER = "| task | do nothing | native reward: probes paid more | verdict | `reward=\"exact\"` |"


def main(argv: list[str] | None = None) -> int:
    """Run the audit over every name the importer lists; print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", choices=["reasoning-gym"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--train-size", type=int, default=100,
                        help="train items per task (the candidates probe reads their answers)")
    parser.add_argument("--only", nargs="*", help="these task names only")
    parser.add_argument("--task-timeout", type=int, default=120,
                        help="seconds one task's audit may take (a slow scorer is reported)")
    parser.add_argument("--out", help="also write the table to this file")
    parser.add_argument("--isolate", action="store_true",
                        help="audit each task in a child process, killed after twice "
                             "--task-timeout (a scorer stuck in C code ignores the alarm)")
    args = parser.parse_args(argv)
    from agentgym.envs.imported.resolvers import RESOLVERS

    names = args.only or RESOLVERS[args.source].names()
    if args.isolate and len(names) > 1:  # each task in its own process, killed past the limit
        return _isolated(args, names)
    rows = [HEADER, "|---|---|---|---|---|"]
    counts = {"ok": 0, "FAIL": 0, "error": 0, "timeout": 0}
    started = time.perf_counter()
    for i, name in enumerate(names):
        env_id = f"{args.source}:{name}"
        sizes = {"train_size": args.train_size, "test_size": 10}
        try:
            verdict, failed, base = _audit(env_id, args.seeds, args.task_timeout, **sizes)
            fixed = "-"
            if verdict == "FAIL":
                fixed = _audit(env_id, args.seeds, args.task_timeout, reward="exact",
                               **sizes)[0]
            rows.append(f"| {name} | {base:.3f} | {failed or '-'} | {verdict} | {fixed} |")
            counts[verdict] += 1
        except AuditTimeout:
            rows.append(f"| {name} | - | timeout: over {args.task_timeout} s | timeout | - |")
            counts["timeout"] += 1
        except Exception as e:  # a broken generator is reported, never hidden
            rows.append(f"| {name} | - | error: {type(e).__name__}: {str(e)[:80]} | error | - |")
            counts["error"] += 1
        print(f"[{i + 1}/{len(names)}] {name}: {rows[-1]}", file=sys.stderr, flush=True)
    summary = (f"{len(names)} tasks: {counts['ok']} ok, {counts['FAIL']} pay a degenerate "
               f"policy, {counts['error']} could not run, {counts['timeout']} timed out "
               f"({time.perf_counter() - started:.0f} s)")
    table = "\n".join([*rows, "", summary])
    print(table)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
