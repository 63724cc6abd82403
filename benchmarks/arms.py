"""Two or more training arms side by side, each in its own process: the learning benchmarks'
A/B comparisons (``supo.py``, ``team_advantage.py``) measured in one run.

A benchmark script calls :func:`train_arms` with the overrides that make each arm; every arm
runs ``<script> --arm NAME CONFIG [overrides]`` with its own ``output_dir`` (``<root>/<name>``)
and log (``<root>/<name>.log``), and the script's ``--arm`` branch trains it.
"""

from __future__ import annotations

import json
import logging
import math
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym.trainers import load_config


def rows(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path`` (none when it does not exist yet)."""
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def evals(run: Path) -> list[dict[str, Any]]:
    """The evaluation rows of a run's ``metrics.jsonl``, one per step, in step order."""
    by_step = {int(r["step"]): r for r in rows(run / "metrics.jsonl") if r.get("kind") == "eval"}
    return [by_step[s] for s in sorted(by_step)]


def final_success(run: Path) -> float:
    """Held-out greedy success of a finished run (its ``summary.json``); NaN for a run that did
    not finish (killed, or still running): its last evaluation is not the final one."""
    path = run / "summary.json"
    if not path.exists():
        return math.nan
    return float(json.loads(path.read_text()).get("final", {}).get("success_greedy", math.nan))


def ratio(a: float, b: float) -> float:
    """``a / b`` for success rates: inf when only ``b`` is 0, NaN when both are or one is NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return a / b if b > 0 else (math.nan if a == 0 else math.inf)


def split_argv(argv: list[str], default: str) -> tuple[str, list[str], bool]:
    """``(config, overrides, one_at_a_time)`` from a benchmark's arguments: the config is
    optional; ``--one-at-a-time`` trains the arms one after the other (for a machine without
    the memory of all of them at once)."""
    one_at_a_time = "--one-at-a-time" in argv
    argv = [a for a in argv if a != "--one-at-a-time"]
    named = bool(argv) and "=" not in argv[0]
    return (argv[0], argv[1:], one_at_a_time) if named else (default, argv, one_at_a_time)


def train_arms(script: str, config: str, overrides: list[str],
               arms: dict[str, list[str]], one_at_a_time: bool = False) -> tuple[Path, float]:
    """Train every arm (``arms``: name -> its extra overrides), all at once or one after the
    other, and wait for all.

    Returns the run folder and the wall time in minutes; an arm that failed is said on stdout
    with its log.
    """
    root = Path(load_config(config, overrides).output_dir)
    root.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    procs = []
    for arm, extra in arms.items():
        with open(root / f"{arm}.log", "w") as log:  # the child keeps its own copy of the fd
            procs.append(subprocess.Popen(
                [sys.executable, script, "--arm", arm, config, *overrides,
                 f"output_dir={root / arm}", *extra],
                stdout=log, stderr=subprocess.STDOUT))
        if one_at_a_time:
            procs[-1].wait()
    codes = [p.wait() for p in procs]
    for arm, code in zip(arms, codes, strict=True):
        if code:
            sys.stdout.write(f"{arm} arm exited {code}; see {root / arm}.log\n")
    return root, (time.monotonic() - t0) / 60


def train_arm(arm: str, config: str, overrides: list[str], log_name: str,
              row: Callable[[Any], dict[str, Any]]) -> None:
    """Train one arm in this process, appending ``{"step": ..., **row(result)}`` for each
    training rollout to ``<output_dir>/<log_name>`` (``result``: the trainer's rollout result)."""
    from agentgym import get_registry
    from agentgym.trainers import train

    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s {arm} %(name)s: %(message)s")
    cfg = load_config(config, overrides)
    base = get_registry("trainers").load(cfg.algorithm)
    path = Path(cfg.output_dir) / log_name

    class Logged(base):  # type: ignore[misc, valid-type]
        def _rollout(self, task_ids: list[str]) -> Any:
            result = super()._rollout(task_ids)
            with path.open("a") as f:
                f.write(json.dumps({"step": self.state.step, **row(result)}) + "\n")
            return result

    train(cfg, trainer_cls=Logged)
