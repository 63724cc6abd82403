"""Web envs across event loops: a sync engine runs call after call; user code may run one loop
per batch. Neither may hand a browser of an ended loop to the next episode."""

from __future__ import annotations

import asyncio

import pytest

from agentgym.sandboxes.browser import browser_processes, chromium_available

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Chromium missing")
ENV = "miniwob/click-test-v0"


def test_sync_engine_calls_share_one_loop_and_keep_their_browsers() -> None:
    from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig

    engine = Engine(ENV, "scripted", num_envs=2, config=RolloutConfig(max_turns=3))
    try:
        runs, browsers = [], []
        for _ in range(3):  # the trainer: one call per step, greedy then sampled evaluation
            trajs = engine.run([EpisodeRequest(seed=s) for s in range(3)])
            runs.append([(t.success, t.aborted, t.reason) for t in trajs])
            browsers.append(browser_processes()["browser"])
    finally:
        engine.close()
    assert all(ok and not aborted for run in runs for ok, aborted, _ in run), runs
    assert browsers[0] >= 1 and browsers == [browsers[0]] * 3  # the same browsers every call
    assert engine.stats.aborted == 0


def test_an_env_reset_on_a_new_loop_after_the_old_one_ended_gets_a_fresh_browser() -> None:
    import agentgym

    env = agentgym.make(ENV)
    try:
        async def episode(seed: int) -> str:
            obs, _ = await env.unwrapped.areset(seed=seed)
            obs, _, _, _, info = await env.unwrapped.astep("scroll(0, 100)")
            assert "error" not in info or "closed" not in str(info["error"]), info
            return str(obs["text"])

        first = asyncio.run(episode(0))  # this loop ends with the call
        before = browser_processes()["browser"]
        second = asyncio.run(episode(1))  # a new loop: the old browser cannot be awaited here
        assert first and second
        assert browser_processes()["browser"] == before  # the old loop's browser was killed
    finally:
        env.close()
    assert sum(browser_processes().values()) == 0  # nothing of either loop is left
