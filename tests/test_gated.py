"""Gated reward accumulation on hand-worked episodes: intermediate rewards are paid at the end
only when the outcome clears the gate."""

from __future__ import annotations

from typing import Any

import pytest

from agentgym import AgentEnv, make_observation
from agentgym.gated import GatedReward


class Scripted(AgentEnv):
    """Steps return the scripted (reward, terminated, truncated, info) tuples in order."""

    def __init__(self, steps: list[tuple[float, bool, bool, dict[str, Any]]]) -> None:
        super().__init__()
        self.steps = steps
        self.i = 0

    def _reset(self, options):  # type: ignore[no-untyped-def]
        self.i = 0
        return make_observation("go"), {}

    def _step(self, action):  # type: ignore[no-untyped-def]
        reward, term, trunc, info = self.steps[self.i]
        self.i += 1
        return make_observation("."), reward, term, trunc, dict(info)


def run(env: GatedReward) -> list[float]:
    env.reset(seed=0)
    rewards, done = [], False
    while not done:
        _, r, term, trunc, _ = env.step("x")
        rewards.append(r)
        done = term or trunc
    return rewards


def test_intermediate_rewards_are_paid_only_past_the_gate() -> None:
    passed = [(0.2, False, False, {}), (0.3, False, False, {}), (1.0, True, False, {})]
    failed = [(0.2, False, False, {}), (0.3, False, False, {}), (0.0, True, False, {})]
    assert run(GatedReward(Scripted(passed), gate=1.0)) == pytest.approx([0, 0, 1.5])
    assert run(GatedReward(Scripted(failed), gate=1.0)) == pytest.approx([0, 0, 0.0])
    assert run(GatedReward(Scripted(passed), gate=1.0, weight=0.5)) == pytest.approx([0, 0, 1.25])


def test_truncated_and_aborted_episodes_pay_nothing_held_back() -> None:
    truncated = [(0.5, False, False, {}), (0.5, False, True, {})]
    aborted = [(0.5, False, False, {}), (1.0, True, False, {"aborted": True})]
    assert run(GatedReward(Scripted(truncated))) == [0.0, 0.0]
    env = GatedReward(Scripted(aborted))
    assert run(env) == [0.0, 1.0]  # the outcome as reported, nothing held back added
    env.reset(seed=0)
    env.step("x")
    *_, info = env.step("x")
    assert info["gated"] == {"outcome": 1.0, "success": None, "intermediate": 0.5,
                             "opened": False}


async def test_async_twin_and_reset_clear_the_held_rewards() -> None:
    env = GatedReward(Scripted([(0.4, False, False, {}), (1.0, True, False, {})]))
    await env.areset(seed=0)
    await env.astep("x")
    assert env.held == pytest.approx(0.4)
    await env.areset(seed=0)
    assert env.held == 0.0
    await env.astep("x")
    *_, reward, _, _, info = await env.astep("x")
    assert reward == pytest.approx(1.4) and info["gated"]["opened"]
