"""Attack: GatedReward reading the last step's reward as the episode's outcome. On a game seat the
final step can pay (the last hand won) while the match is lost: the gate must follow the env's
own terminal ``success``, not the last reward."""

from __future__ import annotations

from typing import Any

import pytest

import agentgym
from agentgym import AgentEnv, make_observation
from agentgym.gated import GatedReward


class Scripted(AgentEnv):
    """Steps return the scripted (reward, terminated, truncated, info) tuples in order."""

    def __init__(self, steps: list[tuple[float, bool, bool, dict[str, Any]]]) -> None:
        super().__init__()
        self.steps, self.i = steps, 0

    def _reset(self, options):  # type: ignore[no-untyped-def]
        self.i = 0
        return make_observation("go"), {}

    def _step(self, action):  # type: ignore[no-untyped-def]
        reward, term, trunc, info = self.steps[self.i]
        self.i += 1
        return make_observation("."), reward, term, trunc, dict(info)


def _play(env: GatedReward) -> tuple[list[float], dict[str, Any]]:
    env.reset(seed=0)
    rewards, info, done = [], {}, False
    while not done:
        _, r, term, trunc, info = env.step("x")
        rewards.append(r)
        done = term or trunc
    return rewards, info


def test_a_lost_match_whose_last_step_pays_keeps_the_gate_shut() -> None:
    lost = [(0.5, False, False, {}), (0.5, False, False, {}),
            (1.0, True, False, {"success": False, "outcome": "loss"})]
    rewards, info = _play(GatedReward(Scripted(lost), gate=1.0))
    assert not info["gated"]["opened"]
    assert rewards == pytest.approx([0.0, 0.0, 1.0])  # the step's own reward, nothing held back


def test_a_won_match_opens_the_gate_whatever_its_last_step_paid() -> None:
    won = [(0.5, False, False, {}), (0.0, True, False, {"success": True, "outcome": "win"})]
    rewards, info = _play(GatedReward(Scripted(won), gate=1.0))
    assert info["gated"]["opened"] and info["gated"]["success"] is True
    assert rewards == pytest.approx([0.0, 0.5])


def test_on_a_real_seat_the_gate_opens_exactly_on_won_matches() -> None:
    env = GatedReward(agentgym.make("games/kuhn-poker-vs-scripted-v0"), gate=0.0)
    seen = set()
    for seed in range(12):
        env.reset(seed=seed)
        done, info = False, {}
        while not done:  # the last legal word counts: bet when opening, call when facing one
            _, _, term, trunc, info = env.step("fold check bet call")
            done = term or trunc
        if "gated" in info:
            assert info["gated"]["opened"] == bool(info.get("success")), info
            seen.add(bool(info.get("success")))
    env.close()
    assert seen == {True, False}
