"""Self-play learning gain: SmolLM2-135M on tic-tac-toe, win rates before and after.

    python benchmarks/selfplay.py [CONFIG] [key=value ...]
    python benchmarks/selfplay.py --report RUN_DIR      # figures of a finished run

Default config: ``configs/selfplay_tictactoe_cpu.yaml`` (behaviour cloning on the scripted
player, then GRPO against a pool of the policy's own past checkpoints, agent-wise advantages).
Every evaluation plays the held-out openings greedily against the scripted player and against
the starting checkpoint (the weights before training); a draw counts half. Prints the win rates
and the Elo rating at every evaluation and the wall time; the last line is
``selfplay_winrate_gain_points=...``: the win rate against the scripted player after training
minus before, in points.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT = "configs/selfplay_tictactoe_cpu.yaml"


def _evals(run: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    by_step = {int(r["step"]): r for r in rows if r.get("kind") == "eval"}
    return [by_step[s] for s in sorted(by_step)]


def report(run: Path, minutes: float | None = None) -> float:
    """Print the figures of ``run``; returns the gain against the scripted player in points."""
    evals = _evals(run)
    if not evals:
        raise SystemExit(f"no evaluation in {run / 'metrics.jsonl'}")
    for e in evals:
        sys.stdout.write(
            f"step {int(e['step']):>3}: winrate_scripted={e.get('winrate_scripted', 0):.3f} "
            f"winrate_start={e.get('winrate_start', 0):.3f} elo={e.get('elo', 0):.0f} "
            f"success_greedy={e.get('success_greedy', 0):.3f}\n")
    first, last = evals[0], evals[-1]
    if minutes is not None:
        load = os.getloadavg()[0]
        sys.stdout.write(f"wall_minutes={minutes:.1f} load_1min_at_end={load:.1f}\n")
    gain = 100 * (last.get("winrate_scripted", 0.0) - first.get("winrate_scripted", 0.0))
    vs_start = 100 * (last.get("winrate_start", 0.0) - 0.5)
    sys.stdout.write(f"winrate_vs_starting_checkpoint_after={last.get('winrate_start', 0):.3f} "
                     f"({vs_start:+.1f} points over an even match)\n")
    sys.stdout.write(f"selfplay_winrate_gain_points={gain:.1f}\n")
    return gain


def main(argv: list[str]) -> None:
    """Train the config (or report a finished run) and print the win rates."""
    if argv[:1] == ["--report"]:
        report(Path(argv[1]))
        return
    from agentgym.trainers import load_config, train

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    path = argv[0] if argv and "=" not in argv[0] else DEFAULT
    cfg = load_config(path, [a for a in argv if "=" in a])
    t0 = time.perf_counter()
    train(cfg)
    report(Path(cfg.output_dir), (time.perf_counter() - t0) / 60)


if __name__ == "__main__":
    main(sys.argv[1:])
