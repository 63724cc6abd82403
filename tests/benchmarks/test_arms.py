"""The A/B learning benchmarks' report: an arm killed before its end gives no final figure."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


def _arm(run: Path, evals: list[float], finished: bool) -> None:
    run.mkdir(parents=True)
    rows = [{"step": 2 * (i + 1), "kind": "eval", "success_greedy": s} for i, s in enumerate(evals)]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    if finished:
        (run / "summary.json").write_text(json.dumps({"final": {"success_greedy": evals[-1]}}))


def test_a_killed_arm_reports_no_ratio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The agent arm died after its first evaluation (an OOM kill): its early figure must not be
    compared with the other arm's final one."""
    from team_advantage import report

    _arm(tmp_path / "agent", [0.1], finished=False)
    _arm(tmp_path / "global", [0.1, 0.3, 0.4], finished=True)
    assert math.isnan(report(tmp_path))
    out = capsys.readouterr().out
    assert "agent: unfinished" in out
    assert out.splitlines()[-1] == "agentwise_vs_global_heldout_success_ratio=nan"


def test_finished_arms_give_the_ratio_of_their_final_figures(tmp_path: Path) -> None:
    from team_advantage import report

    _arm(tmp_path / "agent", [0.1, 0.5, 0.3], finished=True)
    _arm(tmp_path / "global", [0.2, 0.6], finished=True)
    assert report(tmp_path) == pytest.approx(0.5)


def test_ratio_edges() -> None:
    from arms import ratio

    assert ratio(0.4, 0.2) == pytest.approx(2.0)
    assert ratio(0.4, 0.0) == math.inf
    assert math.isnan(ratio(0.0, 0.0))
    assert math.isnan(ratio(math.nan, 0.5))
