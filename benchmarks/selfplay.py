"""Self-play learning gain: SmolLM2-135M on Kuhn poker or tic-tac-toe, win rates before and after.

    python benchmarks/selfplay.py [CONFIG] [key=value ...]
    python benchmarks/selfplay.py --report RUN_DIR      # figures of a finished run
    python benchmarks/selfplay.py --checkpoint STEP_DIR [CONFIG] [key=value ...]
                                                        # evaluate a saved checkpoint

Default config: ``configs/selfplay_kuhn_cpu.yaml`` (``configs/selfplay_tictactoe_cpu.yaml``
for tic-tac-toe; both: behaviour cloning on the scripted
player, then GRPO against a pool of the policy's own past checkpoints, agent-wise advantages).
Every evaluation plays the held-out tasks greedily against the scripted player and against
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

DEFAULT = "configs/selfplay_kuhn_cpu.yaml"


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


def checkpoint_trainer(step_dir: Path, cfg: Any, scratch: str) -> Any:
    """The run's trainer, set up as the run set it up (so ``start`` is the config's starting
    weights) with ``scratch`` as its output folder, holding checkpoint ``step_dir``'s weights."""
    from dataclasses import replace

    from agentgym import get_registry
    from agentgym.trainers.checkpoint import load_weights
    from agentgym.trainers.distributed import unwrap

    cfg = replace(cfg, output_dir=scratch, resume=False, tensorboard=False)
    trainer = get_registry("trainers").load(cfg.algorithm)(cfg)
    trainer.setup()
    model, weights = unwrap(trainer.model), load_weights(step_dir)
    names = {n for n, _ in model.named_parameters()}  # a tied head is named once
    if set(weights) != names:
        trainer.close()
        raise SystemExit(f"{step_dir} does not hold this model's weights: "
                         f"{sorted(names ^ set(weights))[:3]}")
    model.load_state_dict(weights, strict=False)
    return trainer


def evaluate_checkpoint(step_dir: Path, cfg: Any) -> dict[str, float]:
    """The self-play evaluation of checkpoint ``step_dir`` (win rates against
    ``eval_opponents`` and Elo), as the run would have printed it at that step: for a run whose
    last evaluation was lost."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        trainer = checkpoint_trainer(step_dir, cfg, scratch)
        try:
            return {"step": float(int(step_dir.name.rsplit("-", 1)[-1])),
                    **trainer.selfplay.evaluate(trainer.eval_ids)}
        finally:
            trainer.close()


def main(argv: list[str]) -> None:
    """Train the config (or report a finished run, or evaluate a checkpoint) and print the
    win rates."""
    if argv[:1] == ["--report"]:
        report(Path(argv[1]))
        return
    from agentgym.trainers import load_config, train

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if argv[:1] == ["--checkpoint"]:
        step_dir, argv = Path(argv[1]), argv[2:]
        path = argv[0] if argv and "=" not in argv[0] else DEFAULT
        row = evaluate_checkpoint(step_dir, load_config(path, [a for a in argv if "=" in a]))
        sys.stdout.write(" ".join(f"{k}={v:.3f}" for k, v in row.items()) + "\n")
        return
    path = argv[0] if argv and "=" not in argv[0] else DEFAULT
    cfg = load_config(path, [a for a in argv if "=" in a])
    t0 = time.perf_counter()
    train(cfg)
    report(Path(cfg.output_dir), (time.perf_counter() - t0) / 60)


if __name__ == "__main__":
    main(sys.argv[1:])
