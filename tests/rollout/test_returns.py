"""The one summing place of episode returns: totals, and non-finite rewards failing closed."""

from __future__ import annotations

import math

from agentgym.rollout import EpisodeReturn


def test_episode_return_sums_steps_and_fails_closed_on_non_finite_rewards():
    r = EpisodeReturn()
    assert r.add(0.5) == 0.5 and r.add(1) == 1.5 and r.error == ""
    assert r.add(math.nan) == 1.5 and "step 3" in r.error and "nan" in r.error
    assert r.add(math.inf) == 1.5 and r.add("x") == 1.5
    assert r.steps == [0.5, 1.0, 0.0, 0.0, 0.0] and r.total == 1.5
