"""Learning gain on a held-out split: train SmolLM2-135M with GRPO on CPU, evaluate before/after.

    python benchmarks/learning_gain.py [CONFIG] [key=value ...]

Default config: ``configs/grpo_arith_cpu.yaml``. The held-out split is evaluated with the same
protocol before step 1 and after the last step (greedy, and ``eval_samples`` sampled answers per
task at the training temperature, with the same seeds). Prints both numbers; the last line is
``heldout_success_gain_greedy=...``. Learning curves: ``<output_dir>/report.png``.
"""

from __future__ import annotations

import logging
import sys
import time

from agentgym.trainers import load_config, train


def main(argv: list[str]) -> None:
    """Run the config and print before/after held-out success."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    path = argv[0] if argv and "=" not in argv[0] else "configs/grpo_arith_cpu.yaml"
    overrides = [a for a in argv if "=" in a]
    cfg = load_config(path, overrides)
    t0 = time.perf_counter()
    result = train(cfg)
    minutes = (time.perf_counter() - t0) / 60
    before, after = result.baseline, result.final
    sys.stdout.write(f"config={path} overrides={overrides} steps={result.steps} "
                     f"wall_minutes={minutes:.1f}\n")
    for mode in ("greedy", "sampled"):
        key = f"success_{mode}"
        if key in before and key in after:
            sys.stdout.write(f"heldout_{mode}: before={before[key]:.3f} after={after[key]:.3f} "
                             f"gain={after[key] - before[key]:+.3f}\n")
    sys.stdout.write(f"report={result.report_png}\n")
    gain = after.get("success_greedy", 0.0) - before.get("success_greedy", 0.0)
    sys.stdout.write(f"heldout_success_gain_greedy={gain:.3f}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
