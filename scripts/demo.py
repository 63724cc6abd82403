"""`make demo`: SmolLM2-135M learns a multi-turn tool task on a CPU, before/after on held-out tasks.

The task is ``shop/price-v0`` ("How much do 3 pens cost?"): the unit prices are private to each
task, so a success takes three tool calls in three turns (``lookup(pen)`` -> ``4``,
``calc(4*3)`` -> ``12``, ``answer(12)``). Two commands, each safe to repeat (``--overwrite``
replaces the previous demo's folders):

1. ``agentgym train configs/demo_shop_cpu.yaml``: behaviour cloning on the scripted expert's
   train episodes, then GRPO; the held-out ``test`` tasks (never trained on) are evaluated
   greedily before training, after behaviour cloning and at the end. The before/after lands in
   ``runs/demo/train/summary.json`` and in the picture ``runs/demo/train/report.png``.
2. ``agentgym eval`` of the trained model on the held-out tasks with a trajectory viewer
   (``runs/demo/eval_after/viewer/index.html``): every episode, turn by turn.

It ends with the before/after success rates, the wall time and the paths to open. To retarget
the demo, change the constants below; nothing else depends on them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent / "agentgym"
ENV = "shop/price-v0"
"""The multi-turn tool env whose held-out split is evaluated before and after training."""
CONFIG = "configs/demo_shop_cpu.yaml"
"""BC + GRPO config (docs/training.md, "make demo")."""
RUN = Path("runs/demo")
POLICY_TIMEOUT = 1800
EVAL_ARGS = ["-n", "10", "--max-turns", "4", "--max-new-tokens", "8", "--num-envs", "10",
             "--policy-timeout", str(POLICY_TIMEOUT)]
"""The protocol of the config's held-out evaluation (greedy, 4 turns of at most 8 new tokens),
on 10 held-out tasks: enough to read in the viewer."""


def agentgym(*args: str) -> None:
    """Run one ``agentgym`` command; stop the demo with its exit status if it fails."""
    print("$ agentgym " + " ".join(args), flush=True)
    done = subprocess.run([str(BIN), *args], check=False)
    if done.returncode != 0:
        sys.exit(done.returncode)


def before_after(train_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The first and last held-out evaluation of a run (its ``summary.json``)."""
    summary = json.loads((train_dir / "summary.json").read_text(encoding="utf-8"))
    if not summary.get("baseline") or not summary.get("final"):
        raise SystemExit(f"{train_dir}/summary.json has no before/after evaluation")
    return summary["baseline"], summary["final"]


def report(train_dir: Path, eval_dir: Path, minutes: float) -> list[str]:
    """The demo's closing lines: before/after, the wall time and what to open."""
    before, after = before_after(train_dir)
    b, a = before["success_greedy"], after["success_greedy"]
    lines = [
        f"held-out success on {ENV} ({after.get('episodes_greedy', '?')} tasks never trained "
        f"on, greedy): before {b:.0%} -> after {a:.0%} ({100 * (a - b):+.0f} points) "
        f"in {minutes:.1f} min",
        f"learning curve and before/after: {train_dir / 'report.png'}",
        f"numbers: {train_dir / 'summary.json'}",
    ]
    viewer = eval_dir / "viewer" / "index.html"
    if viewer.is_file():
        lines.append(f"trajectories of the trained model (open in a browser): "
                     f"{viewer.resolve()}")
    lines.append(f"demo_gain_greedy={a - b:.3f}")
    return lines


def main() -> None:
    """Train with before/after evaluations, evaluate the trained model with a viewer, report."""
    t0 = time.monotonic()
    train_dir, eval_dir = RUN / "train", RUN / "eval_after"
    agentgym("train", CONFIG, f"output_dir={train_dir}", "--overwrite")
    agentgym("eval", ENV, "--policy", f"hf:{train_dir / 'final'}?timeout_s={POLICY_TIMEOUT}",
             "--out", str(eval_dir), "--overwrite", *EVAL_ARGS)
    print()
    print("\n".join(report(train_dir, eval_dir, (time.monotonic() - t0) / 60)), flush=True)


if __name__ == "__main__":
    main()
