"""Multi-turn learning gain: BC warm-up + GRPO on ``shop/price-v0`` with SmolLM2-135M on CPU.

    python benchmarks/multiturn_gain.py [CONFIG] [key=value ...]
    python benchmarks/multiturn_gain.py --report RUN_DIR      # figures of a finished run

Default config: ``configs/bc_grpo_shop_cpu.yaml`` (behaviour cloning on the scripted expert's
train episodes, then GRPO; held-out ``test`` tasks never trained on). Prints held-out success
(greedy and sampled) before training, after the BC warm-up alone and after BC + GRPO, the wall
time, and SOP beside online success at every evaluation with their Spearman correlation. The
last line is ``multiturn_heldout_gain_points=...``: greedy held-out success after BC + GRPO minus
before training, in points.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from agentgym.trainers import load_config, train


def _evals(run: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    by_step: dict[int, dict[str, Any]] = {}
    for r in rows:
        if r["kind"] == "eval":
            by_step[int(r["step"])] = r  # a repeated step (resume) keeps the last
    return [by_step[s] for s in sorted(by_step)]


def report(run: Path, bc_steps: int, minutes: float | None = None) -> float:
    """Print the figures of ``run`` (its metrics.jsonl); returns the greedy gain in points."""
    from scipy.stats import spearmanr

    evals = _evals(run)
    if not evals:
        raise SystemExit(f"no evaluations in {run}/metrics.jsonl")
    first, last = evals[0], evals[-1]
    bc = next((e for e in evals if e["step"] == bc_steps), None)
    out = sys.stdout.write
    if minutes is not None:
        out(f"run={run} wall_minutes={minutes:.1f}\n")
    for mode in ("greedy", "sampled"):
        key = f"success_{mode}"
        parts = [f"before(step {first['step']})={first.get(key, float('nan')):.3f}"]
        if bc is not None and bc is not last:
            parts.append(f"bc_alone(step {bc['step']})={bc.get(key, float('nan')):.3f}")
        parts.append(f"bc_rl(step {last['step']})={last.get(key, float('nan')):.3f}")
        out(f"heldout_{mode}: " + " ".join(parts) + "\n")
        if bc is not None and bc is not last:
            out(f"rl_share_{mode}_points={100 * (last[key] - bc[key]):+.1f}\n")
    rows = [e for e in evals if "sop" in e]
    for e in rows:
        out(f"step {e['step']:3d}: SOP={e['sop']:.3f} (TSR={e.get('tsr', float('nan')):.3f} "
            f"PG={e.get('pg', float('nan')):.3f}) online_greedy={e['success_greedy']:.3f} "
            f"online_sampled={e.get('success_sampled', float('nan')):.3f}\n")
    if len(rows) >= 3:
        sop = [e["sop"] for e in rows]
        for mode, name in (("greedy", "sop_vs_online_spearman"),
                           ("sampled", "sop_vs_online_sampled_spearman")):
            online = [e.get(f"success_{mode}", float("nan")) for e in rows]
            rho = spearmanr(sop, online).statistic
            out(f"{name}={rho:.3f} over {len(rows)} checkpoints\n")
    gain = 100 * (last["success_greedy"] - first["success_greedy"])
    out(f"multiturn_heldout_gain_points={gain:.1f}\n")
    return gain


def main(argv: list[str]) -> None:
    """Train the config (or read a finished run) and print the figures."""
    if argv[:1] == ["--report"]:
        run = Path(argv[1])
        cfg = load_config(run / "config.yaml")
        report(run, cfg.bc_steps)
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    path = argv[0] if argv and "=" not in argv[0] else "configs/bc_grpo_shop_cpu.yaml"
    cfg = load_config(path, [a for a in argv if "=" in a])
    t0 = time.perf_counter()
    result = train(cfg)
    report(result.output_dir, cfg.bc_steps, (time.perf_counter() - t0) / 60)


if __name__ == "__main__":
    main(sys.argv[1:])
