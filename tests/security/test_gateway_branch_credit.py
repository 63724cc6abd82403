"""Gateway credit: every branch of an episode is scored on its own turns (issue 35).

Under ``reward: env`` an agent that ends a branch wrongly and then retries in a new context
made two branches; both used to be credited with the replay reward of the last one, so the
wrong, episode-ending branch was trained with the retry's reward.
"""

from __future__ import annotations

from types import SimpleNamespace

from agentgym.rollout import Trajectory
from agentgym.trainers.gateway_rollouts import GatewayRollouts


def _branch(text: str) -> Trajectory:
    t = Trajectory()
    t.info = {"gateway": {"texts": [text]}}
    return t


def test_a_wrong_branch_before_a_retry_keeps_its_own_reward(monkeypatch):
    rollouts = GatewayRollouts.__new__(GatewayRollouts)  # no servers: only the scoring runs
    rollouts.cfg = SimpleNamespace(env="arith/add-v0", env_kwargs={})
    rollouts.settings = SimpleNamespace(reward="env")
    rollouts.max_turns, rollouts._reward_fn = 1, None
    wrong, retry = _branch("999"), _branch("5")  # add-2-3: 5 is right
    rollouts.gateway = SimpleNamespace(collect=lambda episode: [wrong, retry])
    monkeypatch.setattr(rollouts, "_play", lambda *a: ("", ""), raising=False)
    trajs = rollouts._episode("add-2-3", 0, "g", "train")
    assert [t.reward for t in trajs] == [0.0, 1.0]
