"""A web agent that learns: BC + multi-turn GRPO on the bundled WebArena-Lite twin, on the CPU.

    python benchmarks/web_learning.py [CONFIG] [key=value ...]
    python benchmarks/web_learning.py --report RUN_DIR      # figures of a finished run

Default config: ``configs/bc_grpo_webarena_lite_cpu.yaml`` (WebAgent-R1's recipe with
SmolLM2-135M: behaviour cloning from the twin's scripted experts on ``learn-train``, then GRPO
with the binary task reward; ``learn-test`` held out, see ``envs/webarena/twin_learn.py``).
Prints held-out success (greedy and sampled) before training, after BC alone and after BC +
GRPO, and the wall time; ``web_heldout_gain_points=...`` is greedy held-out success after
BC + GRPO minus before training. The last line is ``web_rl_share_heldout_points=...``: GRPO's own
share, greedy held-out success after BC + GRPO minus after BC alone, in points (``nan`` when the
run has no evaluation after BC alone).
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys
import time
from pathlib import Path

from agentgym.trainers import load_config, train

sys.path.insert(0, str(Path(__file__).resolve().parent))
from multiturn_gain import report as _report  # noqa: E402

DEFAULT = "configs/bc_grpo_webarena_lite_cpu.yaml"


def report(run: Path, bc_steps: int, minutes: float | None = None) -> float:
    """Print the figures of ``run`` under this benchmark's headline; returns the greedy gain."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        gain = _report(run, bc_steps, minutes)
    lines = [ln for ln in buf.getvalue().splitlines()
             if not ln.startswith("multiturn_heldout_gain_points=")]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.write(f"web_heldout_gain_points={gain:.1f}\n")
    share = next((float(ln.partition("=")[2]) for ln in lines  # the report's own figure
                  if ln.startswith("rl_share_greedy_points=")), float("nan"))
    sys.stdout.write(f"web_rl_share_heldout_points={share:.1f}\n")
    return gain


def main(argv: list[str]) -> None:
    """Train the config (or read a finished run) and print the figures."""
    if argv[:1] == ["--report"]:
        run = Path(argv[1])
        report(run, load_config(run / "config.yaml").bc_steps)
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per site request
    path = argv[0] if argv and "=" not in argv[0] else DEFAULT
    cfg = load_config(path, [a for a in argv if "=" in a])
    t0 = time.perf_counter()
    result = train(cfg)
    report(result.output_dir, cfg.bc_steps, (time.perf_counter() - t0) / 60)


if __name__ == "__main__":
    main(sys.argv[1:])
