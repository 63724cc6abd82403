"""`make demo`: SmolLM2-135M learns a multi-turn tool task on a CPU, before/after on held-out tasks.

The task is ``shop/price-v0`` ("How much do 3 pens cost?"): the unit prices are private to each
task, so a success takes three tool calls in three turns (``lookup(pen)`` -> ``4``,
``calc(4*3)`` -> ``12``, ``answer(12)``). Two commands, each safe to repeat (``--overwrite``
replaces the previous demo's folders):

1. ``agentgym train configs/demo_shop_cpu.yaml``: behaviour cloning on the scripted expert's
   train episodes, then GRPO; the held-out ``test`` tasks (never trained on) are evaluated
   greedily and sampled before training, after behaviour cloning and at the end, so the report
   shows BC's gain and GRPO's own share on top of it (``runs/demo/train/metrics.jsonl``, the
   picture ``runs/demo/train/report.png``).
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


def evaluations(train_dir: Path) -> tuple[dict[int, dict[str, Any]], int]:
    """The run's held-out evaluations by step (its ``metrics.jsonl``) and its BC steps (its
    ``config.yaml``): the evaluation at that step is behaviour cloning's alone."""
    import yaml

    bc_steps = int(yaml.safe_load((train_dir / "config.yaml").read_text())["bc_steps"])
    rows = [json.loads(line) for line in
            (train_dir / "metrics.jsonl").read_text(encoding="utf-8").splitlines() if line]
    evals = {int(r["step"]): r for r in rows if r.get("kind") == "eval"}
    if 0 not in evals or bc_steps not in evals or max(evals) <= bc_steps:
        raise SystemExit(f"{train_dir}/metrics.jsonl lacks the evaluations before training, "
                         f"after BC (step {bc_steps}) or after GRPO")
    return evals, bc_steps


def report(train_dir: Path, eval_dir: Path, minutes: float) -> list[str]:
    """The demo's closing lines: before / after BC / after BC + GRPO, time, what to open."""
    evals, bc_steps = evaluations(train_dir)
    before, bc, rl = evals[0], evals[bc_steps], evals[max(evals)]
    tasks = rl.get("episodes_greedy", "?")
    lines = [f"held-out success on {ENV} ({tasks} tasks never trained on), in {minutes:.1f} min:"]
    for mode in ("greedy", "sampled"):
        key = f"success_{mode}"
        if key not in rl:
            continue
        b, c, r = before[key], bc[key], rl[key]
        lines.append(f"  {mode:7s}: before {b:4.0%} -> after BC {c:4.0%} -> after BC + GRPO "
                     f"{r:4.0%}  (BC {100 * (c - b):+.0f} points, GRPO's own share "
                     f"{100 * (r - c):+.0f} points)")
    lines += [f"learning curve (BC loss, GRPO reward, held-out success): "
              f"{train_dir / 'report.png'}",
              f"numbers: {train_dir / 'metrics.jsonl'} and {train_dir / 'summary.json'}"]
    viewer = eval_dir / "viewer" / "index.html"
    if viewer.is_file():
        lines.append(f"trajectories of the trained model on {EVAL_ARGS[1]} held-out tasks "
                     f"(open in a browser): {viewer.resolve()}")
    if "success_sampled" in rl:
        lines.append(f"demo_rl_share_sampled_points="
                     f"{100 * (rl['success_sampled'] - bc['success_sampled']):.1f}")
    lines.append(f"demo_gain_greedy={rl['success_greedy'] - before['success_greedy']:.3f}")
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
