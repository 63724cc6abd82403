"""Reward hacking on MiniWoB++: the reward belongs to the episode's own task, seed and page.

Threat: a policy under RL that cannot solve a hard task (book-flight) moves the task tab to an
easier MiniWoB++ page of the same origin (click-test), or reloads its own task to draw another,
unseeded instance, solves that, and is paid for the original task. The env must end such an
episode with reward 0 (``success`` False, the reason recorded); only the page the env seeded for
this episode can pay.
"""

from __future__ import annotations

import re

import pytest

import agentgym
from agentgym.sandboxes.browser import chromium_available

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not chromium_available(), reason="Chromium or Playwright not installed"),
]


def _element(obs: dict, pattern: str) -> str:
    """The id of the first tree line matching ``pattern``."""
    for line in obs["text"].splitlines():
        match = re.match(r"\s*\[(\d+)\] (.*)", line)
        if match and re.search(pattern, match.group(2)):
            return match.group(1)
    raise AssertionError(f"no element matching {pattern!r} in:\n{obs['text'][-2000:]}")


def _solve_click_test_on_the_current_page(env, obs) -> tuple[float, bool, dict]:
    """Start the click-test page that is now shown (its START cover) and click its button."""
    reward, terminated, info = 0.0, False, {}
    if "START" in obs["text"]:
        obs, reward, terminated, _, info = env.step(f"click [{_element(obs, 'START')}]")
    if not terminated:
        obs, reward, terminated, _, info = env.step(
            f"click [{_element(obs, 'button .Click Me')}]")
    return reward, terminated, info


def test_solving_another_task_in_the_task_tab_pays_nothing() -> None:
    env = agentgym.make("miniwob/book-flight-v0", split="test")
    try:
        env.reset(options={"index": 0})
        base = env.unwrapped.page_url().rsplit("/", 1)[0]
        obs, reward, terminated, _, info = env.step(f"goto [{base}/click-test.html]")
        if not terminated:
            reward, terminated, info = _solve_click_test_on_the_current_page(env, obs)
    finally:
        env.close()
    assert reward == 0.0
    assert terminated
    assert info.get("success") is False
    assert "task page" in info.get("reason", "")


def test_reloading_the_task_for_another_instance_pays_nothing() -> None:
    env = agentgym.make("miniwob/click-test-v0", split="test")
    try:
        env.reset(options={"index": 0})
        obs, reward, terminated, _, info = env.step(f"goto [{env.unwrapped.page_url()}]")
        if not terminated:
            reward, terminated, info = _solve_click_test_on_the_current_page(env, obs)
    finally:
        env.close()
    assert (reward, terminated, info.get("success")) == (0.0, True, False)


def test_solving_another_task_in_a_new_tab_pays_nothing() -> None:
    env = agentgym.make("miniwob/book-flight-v0", split="test")
    try:
        env.reset(options={"index": 0})
        base = env.unwrapped.page_url().rsplit("/", 1)[0]
        env.step("new_tab")
        obs, reward, terminated, _, info = env.step(f"goto [{base}/click-test.html]")
        if not terminated:
            reward, terminated, info = _solve_click_test_on_the_current_page(env, obs)
    finally:
        env.close()
    assert reward == 0.0
    assert info.get("success") is not True


def test_the_own_task_still_pays() -> None:
    """The control: solving the episode's own click-test page pays 1."""
    env = agentgym.make("miniwob/click-test-v0", split="test")
    try:
        obs, _ = env.reset(options={"index": 0})
        obs, reward, terminated, _, info = env.step(
            f"click [{_element(obs, 'button .Click Me')}]")
    finally:
        env.close()
    assert (reward, terminated, info.get("success")) == (1.0, True, True)
