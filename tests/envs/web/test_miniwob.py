"""MiniWoB++ envs: registration, split, experts against the real pages, determinism."""

from __future__ import annotations

import pytest

import agentgym
from agentgym.envs.web.miniwob import (
    EXPERTS,
    KNOWN_BROKEN,
    TASK_NAMES,
    TEST_SEEDS,
    TRAIN_SEEDS,
    load_tasks,
)
from agentgym.envs.web.miniwob.tasks import packaged_task_names
from agentgym.sandboxes.browser import BrowserConfig, release_pool, shared_pool


def test_every_packaged_page_is_registered() -> None:
    assert TASK_NAMES == packaged_task_names()
    for name in ("click-button", "enter-text", "book-flight"):
        assert agentgym.spec(f"miniwob/{name}-v0").family == "web"
    assert set(KNOWN_BROKEN) <= set(TASK_NAMES)
    assert len(EXPERTS) >= 20 and set(EXPERTS) <= set(TASK_NAMES) - set(KNOWN_BROKEN)


def test_split_is_over_seeds_without_overlap() -> None:
    tasks = load_tasks("click-button")
    tasks.check()
    test, train = tasks.split("test"), tasks.split("train")
    assert len(test) == len(TEST_SEEDS) and len(train) == len(TRAIN_SEEDS)
    assert not {t.data["seed"] for t in test} & {t.data["seed"] for t in train}
    assert test.ids()[0] == "click-button-0"


@pytest.mark.browser
async def test_experts_solve_their_tasks() -> None:
    """Every expert solves a test instance through the ordinary action space (one browser)."""
    pool = await shared_pool(BrowserConfig())  # held: the envs below share one browser
    try:
        for index, name in enumerate(sorted(EXPERTS)):
            env = agentgym.make(f"miniwob/{name}-v0", split="test", screenshot=False)
            try:
                obs, info = await env.areset(options={"index": index % 3})
                actions = await env.unwrapped.aexpert_actions()
                assert actions and all(isinstance(a, str) for a in actions)
                reward, terminated = 0.0, False
                for action in actions:
                    obs, reward, terminated, _, info = await env.astep(action)
                    assert "error" not in info, (name, action, info)
                    if terminated:
                        break
                assert (reward, terminated) == (1.0, True), (name, index, actions, info)
            finally:
                await env.aclose()
        assert pool.launched == 1
    finally:
        await release_pool(pool)


@pytest.mark.browser
def test_seed_reproduces_the_instance_and_reward_modes() -> None:
    env = agentgym.make("miniwob/click-button-v0", split="test", screenshot=False,
                        reward_mode="raw")
    try:
        goals = {env.reset(options={"task_id": "click-button-7"})[1]["goal"] for _ in range(2)}
        assert len(goals) == 1
        other = env.reset(options={"task_id": "click-button-8"})[1]["goal"]
        assert other.startswith("Click on the")
        for seed in range(10, 30):  # an instance with a button of another label to click
            goal = env.reset(options={"task_id": f"click-button-{seed}"})[1]["goal"]
            target = goal.split('"')[1]
            wrong = [ln.split("]")[0].strip().lstrip("[") for ln in
                     env.unwrapped.tree.text.splitlines()
                     if " button '" in ln and not ln.rstrip().endswith(f"button '{target}'")]
            if wrong:
                break
        _, reward, terminated, _, info = env.step(f"click [{wrong[0]}]")
        assert terminated and reward == -1.0 and info["success"] is False
        env.reset(options={"index": 0})
        _, reward, terminated, _, info = env.step("stop [done]")
        assert terminated and reward == 0.0 and info["reason"] == "stopped"
    finally:
        env.close()
