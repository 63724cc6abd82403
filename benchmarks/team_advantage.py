"""Agent-wise (Dr. MAS) against global advantage normalisation on the cooperative SQL team.

    python benchmarks/team_advantage.py [CONFIG] [key=value ...]
    python benchmarks/team_advantage.py --report RUN_DIR      # figures of two finished arms
    python benchmarks/team_advantage.py --one-at-a-time [...]  # one arm after the other (memory)

Default config: ``configs/team_sql_cpu.yaml`` (behaviour cloning on the scripted roles, then
GRPO on ``sql/team-vs-scripted-v0``: each episode trains one role, planner or executor, beside
the scripted partner; one shared policy plays both roles). Both arms train at once, each in its
own process, with the same seeds: ``agent`` (``advantage_scope: agent``: each role normalised
against its own rewards within the group) and ``global`` (``advantage_scope: group``: the plain
GRPO group). Printed per arm: held-out greedy success at every evaluation, and the training
success of each role at every GRPO step (from the rollouts); the last line is
``agentwise_vs_global_heldout_success_ratio=...``, final held-out success of the agent-wise arm
over the global arm's.
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arms import evals, final_success, ratio, rows, split_argv, train_arm, train_arms  # noqa: E402

DEFAULT = "configs/team_sql_cpu.yaml"
ARMS = {"agent": "agent", "global": "group"}
"""Arm name -> ``advantage_scope``."""
ROLES = "role_success.jsonl"


def run_arm(arm: str, config: str, overrides: list[str]) -> None:
    """Train one arm in this process; each GRPO step's success per role goes to ROLES."""
    train_arm(arm, config, overrides, ROLES, _role_success)


def _role_success(result: Any) -> dict[str, list[float]]:
    """``{role: [successes, episodes]}`` of one training rollout (aborted episodes left out)."""
    by_role: dict[str, list[float]] = defaultdict(list)
    for t in (t for g in result.groups for t in g if not t.aborted):
        by_role[str(t.info.get("seat", "?"))].append(float(t.success))
    return {r: [sum(v), len(v)] for r, v in sorted(by_role.items())}


def report(root: Path, minutes: float | None = None) -> float:
    """Print both arms' figures; returns the agent-wise / global held-out success ratio."""
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
        out(f"{arm}: heldout_greedy " + " ".join(
            f"step {e['step']}={e['success_greedy']:.3f}" for e in done) + "\n")
        for row in rows(root / arm / ROLES):
            step = row.pop("step")
            roles = " ".join(f"{r}={s:.0f}/{n}" for r, (s, n) in row.items())
            out(f"{arm}: train_success step {step + 1} {roles}\n")
        final[arm] = final_success(root / arm)
        if math.isnan(final[arm]):
            out(f"{arm}: unfinished (no {root / arm}/summary.json): no final figure\n")
    agent, glob = final["agent"], final["global"]
    result = ratio(agent, glob)
    out(f"agentwise_vs_global_heldout_success_ratio={result:.3f}\n")
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
                               {arm: [f"advantage_scope={scope}"] for arm, scope in ARMS.items()},
                               one_at_a_time)
    report(root, minutes)


if __name__ == "__main__":
    main(sys.argv[1:])
