"""Issue 24's answers through the real env (bundled sites, real Chromium): reward 0.

The evaluator-level attacks are in ``tests/security/test_webarena_evaluators_attacks.py``; here
the same answers go through ``stop [...]`` in real episodes of bundled tasks that the every-number
answer used to solve (45: "How many orders has customer Amelia Wright placed?", reference 4;
80: open issues of a project, reference 20), beside the right answer, which still scores 1.
"""

from __future__ import annotations

import pytest

import agentgym

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("needs_chromium", "site_server")]
EVERY_NUMBER = " ".join(str(i) for i in range(400))


@pytest.mark.parametrize(("task_id", "right"), [("45", "4"), ("80", "20")])
def test_every_number_at_once_is_not_rewarded_in_a_real_episode(task_id: str,
                                                                right: str) -> None:
    env = agentgym.make("webarena-lite", split="test")
    try:
        rewards = {}
        for answer in (EVERY_NUMBER, f"{right} or {int(right) + 1}", f"1{right}", right):
            env.reset(options={"task_id": task_id})
            _, reward, terminated, _, info = env.step(f"stop [{answer}]")
            assert terminated and "eval_error" not in info
            rewards[answer[:12]] = reward
    finally:
        env.close()
    assert list(rewards.values()) == [0.0, 0.0, 0.0, 1.0]
