"""Long-horizon run: summarised context (SUPO) against the same run with the full context.

    python benchmarks/supo.py [CONFIG] [key=value ...]
    python benchmarks/supo.py --report RUN_DIR        # figures of two finished arms
    python benchmarks/supo.py --one-at-a-time [...]   # one arm after the other (memory)

Default config: ``configs/supo_shop_cpu.yaml`` (BC on the scripted expert, then GRPO on
``shop/price-v0`` with a context budget below the episodes' natural length). Both arms train at
once, each in its own process: ``supo`` (the config as it is) and ``full`` (the same with
``summary_budget=0``), in ``<output_dir>/supo`` and ``<output_dir>/full``. Printed: held-out
greedy success of each arm at every evaluation, the share of episodes that summarised (training
rollouts and held-out), the wall time; the last line is
``supo_vs_full_context_heldout_success_ratio=...``, the final held-out greedy success of the SUPO
arm over the full-context arm's.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arms import evals, final_success, ratio, rows, split_argv, train_arm, train_arms  # noqa: E402

DEFAULT = "configs/supo_shop_cpu.yaml"
ARMS = ("supo", "full")
COUNTS = "rollout_counts.jsonl"


def run_arm(arm: str, config: str, overrides: list[str]) -> None:
    """Train one arm in this process; each training rollout's summary counts go to COUNTS."""
    train_arm(arm, config, overrides, COUNTS, lambda result: {
        "episodes": sum(len(g) for g in result.groups), **result.extra})


def _train_share(run: Path) -> tuple[int, int, int]:
    counts = rows(run / COUNTS)
    return (sum(r["episodes"] for r in counts), sum(r.get("summarised", 0) for r in counts),
            sum(r.get("summaries", 0) for r in counts))


def report(root: Path, minutes: float | None = None) -> float:
    """Print both arms' figures; returns the SUPO / full-context held-out success ratio."""
    out = sys.stdout.write
    if minutes is not None:
        out(f"run={root} wall_minutes={minutes:.1f}\n")
    final: dict[str, float] = {}
    for arm in ARMS:
        done = evals(root / arm)
        if not done:
            out(f"{arm}: no evaluations in {root / arm}/metrics.jsonl\n")
            final[arm] = math.nan
            continue
        parts = [f"step {e['step']}={e['success_greedy']:.3f}" for e in done]
        out(f"{arm}: heldout_greedy " + " ".join(parts) + "\n")
        if "summarised_greedy" in done[-1]:
            share = " ".join(f"step {e['step']}={e['summarised_greedy']:.3f}" for e in done)
            out(f"{arm}: heldout_summarised_share {share}\n")
        episodes, summarised, summaries = _train_share(root / arm)
        if episodes:
            out(f"{arm}: train_summarised_share={summarised / episodes:.3f} ({summarised}/"
                f"{episodes} GRPO episodes, {summaries} summaries)\n")
        final[arm] = final_success(root / arm)
        if math.isnan(final[arm]):
            out(f"{arm}: unfinished (no {root / arm}/summary.json): no final figure\n")
    supo, full = final["supo"], final["full"]
    result = ratio(supo, full)
    out(f"supo_vs_full_context_heldout_success_ratio={result:.3f}\n")
    return result


def main(argv: list[str]) -> None:
    """Train both arms side by side (or read finished ones) and print the figures."""
    if argv[:1] == ["--report"]:
        report(Path(argv[1]))
        return
    if argv[:1] == ["--arm"]:
        run_arm(argv[1], argv[2], argv[3:])
        return
    config, overrides, one_at_a_time = split_argv(argv, DEFAULT)
    root, minutes = train_arms(__file__, config, overrides,
                               {arm: ["summary_budget=0"] if arm == "full" else [] for arm in ARMS},
                               one_at_a_time)
    report(root, minutes)


if __name__ == "__main__":
    main(sys.argv[1:])
