"""Tree against chain rollouts: held-out success against the env steps spent, in one run.

    python benchmarks/tree_vs_chain.py [--target 0.8] [CONFIG] [key=value ...]
    python benchmarks/tree_vs_chain.py --report RUN_DIR [--target 0.8]
    python benchmarks/tree_vs_chain.py --only tree [...]         # one arm, the other kept

Trains the config (default ``configs/tree_shop_cpu.yaml``: 2 behaviour-cloning steps on the
multi-turn shop, then GRPO) twice from the same seed: ``rollout_mode=chain`` (G independent
episodes a task) and ``rollout_mode=tree`` (the same G leaves grown by forking episodes,
:mod:`agentgym.rollout.tree`). After every step it reads the held-out sampled success and the
env steps the training rollouts have taken (a tree's shared prefixes once), prints both curves,
and ends with ``tree_vs_chain_env_steps_to_target_ratio=``: the env steps the tree run took to
first reach ``--target`` held-out success over the chain run's (below 1: the tree got there
with fewer env steps; ``nan`` when either run never got there).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from agentgym.trainers import load_config, train

DEFAULT = "configs/tree_shop_cpu.yaml"


def curve(run: Path, key: str = "success_sampled") -> list[tuple[int, int, float]]:
    """``(step, env_steps, success)`` after every evaluated step of ``run``'s metrics."""
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    env_steps = {int(r["step"]): int(r.get("env_steps", 0)) for r in rows if r["kind"] == "train"}
    out, last = [], 0
    for r in sorted((r for r in rows if r["kind"] == "eval"), key=lambda r: int(r["step"])):
        step = int(r["step"])
        last = max([v for s, v in env_steps.items() if s <= step], default=last)
        out.append((step, last, float(r.get(key, float("nan")))))
    return out


def steps_to(points: list[tuple[int, int, float]], target: float) -> float:
    """Env steps at the first evaluation at or above ``target`` (nan when never)."""
    return next((float(e) for _, e, s in points if s >= target), math.nan)


def report(runs: dict[str, Path], target: float) -> float:
    """Print both curves and the ratio; returns it."""
    out = sys.stdout.write
    found = {}
    for name, run in runs.items():
        points = curve(run)
        out(f"{name}: " + " ".join(f"step {s}: {e} env steps {100 * v:.0f}%" for s, e, v in points)
            + "\n")
        found[name] = steps_to(points, target)
        out(f"{name}_env_steps_to_{target:g}={found[name]:g}\n")
    ratio = found["tree"] / found["chain"] if found["chain"] else math.nan
    out(f"tree_vs_chain_env_steps_to_target_ratio={ratio:.3f}\n")
    return ratio


def main(argv: list[str]) -> None:
    """Run (or report) the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=0.8)
    parser.add_argument("--report", type=Path, default=None)
    parser.add_argument("--only", choices=("chain", "tree"), default=None,
                        help="Train one arm only (the other's run folder is reused).")
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args(argv)
    if args.report is not None:
        report({m: args.report / m for m in ("chain", "tree")}, args.target)
        return
    config = args.rest[0] if args.rest and "=" not in args.rest[0] else DEFAULT
    overrides = [a for a in args.rest if "=" in a]
    base = load_config(config, overrides)
    root = Path(base.output_dir)
    for mode in ("chain", "tree"):
        if args.only not in (None, mode):
            continue
        t0 = time.perf_counter()
        cfg = load_config(config, [*overrides, f"rollout_mode={mode}",
                                   f"output_dir={root / mode}", "overwrite=true"])
        train(cfg)
        sys.stdout.write(f"{mode}: {(time.perf_counter() - t0) / 60:.1f} min\n")
    report({m: root / m for m in ("chain", "tree")}, args.target)


if __name__ == "__main__":
    import logging

    logging.basicConfig(level=logging.WARNING)
    main(sys.argv[1:])
