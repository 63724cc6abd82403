"""`make demo`: train a small model with GRPO and show it learning on held-out tasks.

Three commands, each safe to repeat (``--overwrite`` replaces the previous demo's folders):

1. ``agentgym eval`` of the untrained model on the held-out ``test`` split (greedy);
2. ``agentgym train`` of the arith GRPO config for a few steps (the learning curve lands in
   ``runs/demo/train/report.png``);
3. ``agentgym eval`` of the trained model (``runs/demo/train/final``) with the same protocol.

It ends with the before/after success rates and the gain. To retarget the demo, change the
constants below (another env, config or step count); nothing else depends on them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent / "agentgym"
ENV = "arith/add-v0"
"""Env whose held-out split is evaluated before and after training."""
CONFIG = "configs/grpo_arith_cpu.yaml"
"""Training config (docs/training.md: 46.7% -> 93.3% greedy by step 7)."""
TRAIN_OVERRIDES = ["steps=7", "eval_at_start=false", "eval_every=0", "save_every=0",
                   "save_optimizer=false"]
"""Shorter than the config's 14 steps; the evals below replace the trainer's own."""
BASE_MODEL = "smollm2-135m"
POLICY_TIMEOUT = 1800
EVAL_ARGS = ["--max-new-tokens", "12", "--num-envs", "32", "--policy-timeout", str(POLICY_TIMEOUT)]
"""The protocol of the config's held-out evaluation: greedy, 12 new tokens per turn (one
batched decode of every task: generous time for it on a busy machine)."""
RUN = Path("runs/demo")


def agentgym(*args: str) -> None:
    """Run one ``agentgym`` command; stop the demo with its exit status if it fails."""
    print("$ agentgym " + " ".join(args), flush=True)
    done = subprocess.run([str(BIN), *args], check=False)
    if done.returncode != 0:
        sys.exit(done.returncode)


def evaluate(policy: str, out: Path) -> float:
    """Held-out greedy success of ``policy`` (also written to ``out``)."""
    agentgym("eval", ENV, "--policy", policy, "--out", str(out), "--overwrite", *EVAL_ARGS)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return float(results["metrics"]["success_rate"])


def main() -> None:
    """Evaluate, train, evaluate again; print the gain and where the plots are."""
    t0 = time.monotonic()
    before = evaluate(f"hf:{BASE_MODEL}?timeout_s={POLICY_TIMEOUT}", RUN / "eval_before")
    agentgym("train", CONFIG, f"output_dir={RUN / 'train'}", *TRAIN_OVERRIDES, "--overwrite")
    after = evaluate(f"hf:{RUN / 'train' / 'final'}?timeout_s={POLICY_TIMEOUT}", RUN / "eval_after")
    minutes = (time.monotonic() - t0) / 60
    print(f"\nheld-out success on {ENV} (greedy): before {before:.1%} -> after {after:.1%} "
          f"(gain {100 * (after - before):+.1f} points) in {minutes:.1f} min")
    print(f"learning curve: {RUN / 'train' / 'report.png'}; eval reports: "
          f"{RUN / 'eval_before' / 'report.md'}, {RUN / 'eval_after' / 'report.md'}")
    print(f"demo_gain_greedy={after - before:.3f}")


if __name__ == "__main__":
    main()
