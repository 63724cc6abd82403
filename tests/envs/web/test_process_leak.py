"""Long runs of web envs leave no browser process behind (issue 25, "Long runs leak browser
processes").

A soak of 12 envs grew Chromium's processes by about one per hundred episodes at a constant
number of envs: a tab that escaped the session's bookkeeping (a spare tab whose refocus failed
because the agent had just closed the episode's tab) kept its renderer for as long as the reused
context lived. Random tool calls (new tabs, closed tabs, navigations, clicks) over hundreds of
resets must keep every context down to its episode's tabs and the process count flat.
"""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from agentgym.envs.web.miniwob.env import MiniWoBEnv
from agentgym.policies.random_policy import random_value
from agentgym.sandboxes.browser import browser_processes, chromium_available

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not chromium_available(), reason="Chromium or Playwright not installed"),
]

TAB_ACTIONS = ("new_tab", "close_tab", "tab_focus", "goto", "go_back", "click", "press")


def _random_action(tools: list[dict], rng: random.Random) -> str:
    """A random tool call, half of them from the tab and navigation tools."""
    pool = [t for t in tools if t["function"]["name"] in TAB_ACTIONS] \
        if rng.random() < 0.5 else tools
    fn = rng.choice(pool or tools)["function"]
    args = random_value(fn.get("parameters", {"type": "object"}), rng)
    if fn["name"] == "tab_focus":
        args = {"index": rng.randint(0, 2)}
    return "<tool_call>" + json.dumps({"name": fn["name"], "arguments": args}) + "</tool_call>"


def _stray_tabs(env: MiniWoBEnv) -> int:
    """Tabs of the env's context beyond its episode's tabs and the pending spare tab."""
    session = env.session
    assert session is not None
    spare = 1 if session._spare_tab is not None else 0
    return len(session.context.pages) - len(session.pages) - spare


@pytest.mark.slow  # about 200 episodes: 1 to 3 minutes on the 2-core machine
async def test_hundreds_of_random_episodes_leave_no_tab_or_process_behind() -> None:
    tasks = ("click-test", "click-tab", "click-link", "enter-text")
    envs = [MiniWoBEnv(task, "train") for task in tasks]
    tools = envs[0].tools.to_openai()
    rng = random.Random(7)
    samples: list[int] = []
    strays: list[tuple[int, str, int]] = []

    async def episode(env: MiniWoBEnv, seed: int) -> None:
        await env.areset(seed=seed)
        strays.extend((seed, env.name, n) for n in [_stray_tabs(env)] if n > 0)
        for turn in range(8):  # closing the tab at once races the spare tab being opened
            action = "close_tab" if turn == 0 and seed % 2 else _random_action(tools, rng)
            _, _, terminated, _, _ = await env.astep(action)
            if terminated:
                break

    try:
        for round_ in range(50):
            await asyncio.gather(*(episode(env, round_ * len(envs) + i)
                                   for i, env in enumerate(envs)))
            samples.append(sum(browser_processes().values()))
        for env in envs:  # the last episode's leftovers are swept by the next reset too
            await env.areset(seed=10_000)
            strays.extend((10_000, env.name, n) for n in [_stray_tabs(env)] if n > 0)
    finally:
        for env in envs:
            await env.aclose()
    assert strays == []
    first, last = max(samples[:5]), max(samples[-5:])
    assert last <= first + 2, f"Chromium processes grew from {first} to {last}: {samples}"
    assert sum(browser_processes().values()) == 0
