"""Metrics on hand-computed numbers: Wilson interval, unbiased pass@k, summaries."""

from __future__ import annotations

import math

import pytest

from agentgym.rollout import Trajectory, pass_at_k, summarize, wilson_interval


def test_wilson_interval_by_hand() -> None:
    # 8/10, z = 1.96: centre = (0.8 + 1.96^2/20) / (1 + 1.96^2/10) = 0.99208 / 1.38416 = 0.71674
    # half = 1.96 * sqrt(0.8*0.2/10 + 1.96^2/400) / 1.38416 = 1.96 * 0.160012 / 1.38416 = 0.22658
    low, high = wilson_interval(8, 10, z=1.96)
    assert low == pytest.approx(0.71674 - 0.22658, abs=1e-4)  # 0.4902
    assert high == pytest.approx(0.71674 + 0.22658, abs=1e-4)  # 0.9433
    # 0/5: centre = half = (1.96^2/10) / (1 + 1.96^2/5) = 0.38416 / 1.76832 = 0.21724
    low, high = wilson_interval(0, 5, z=1.96)
    assert low == 0.0 and high == pytest.approx(2 * 0.21724, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_pass_at_k_by_hand() -> None:
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(4, 0, 2) == 0.0
    assert pass_at_k(4, 3, 2) == 1.0  # fewer than k failures: some k-subset always passes
    assert pass_at_k(8, 1, 4) == pytest.approx(1 - math.comb(7, 4) / math.comb(8, 4))  # 0.5
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def _t(task: str, success: bool, turns: int = 2, aborted: bool = False) -> Trajectory:
    t = Trajectory(task_id=task, reward=float(success), turns=turns, aborted=aborted,
                   info={"success": success})
    return t


def test_summary() -> None:
    trajs = [_t("a", True), _t("a", False), _t("b", False), _t("b", False, aborted=True)]
    m = summarize(trajs, k=2)
    # the aborted episode is an infrastructure failure: reported beside, not scored
    assert m["episodes"] == 3 and m["total_episodes"] == 4 and m["tasks"] == 2
    assert m["successes"] == 1 and m["success_rate"] == pytest.approx(1 / 3)
    assert m["aborted"] == 1
    assert m["pass_at_k"] == {"pass@1": pytest.approx(0.25), "pass@2": pytest.approx(1.0)}
    assert m["success_ci95"] == list(wilson_interval(1, 3))
    assert m["mean_reward"] == pytest.approx(1 / 3) and m["mean_turns"] == 2.0


def test_summary_of_only_aborted_episodes_has_no_rate() -> None:
    m = summarize([_t("a", False, aborted=True), _t("b", False, aborted=True)])
    assert m["episodes"] == 0 and m["aborted"] == 2 and m["total_episodes"] == 2
    assert m["success_ci95"] == [0.0, 1.0] and m["pass_at_k"] == {}
