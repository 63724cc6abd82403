"""``webarena-lite`` against the real bundled sites and real Chromium."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import agentgym
from agentgym.envs.webarena.env import WebArenaEnv
from agentgym.envs.webarena.sites.server import SiteServer
from agentgym.envs.webarena.taskgen import ROWS
from agentgym.envs.webarena.tasks import load_tasks

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("needs_chromium", "site_server")]


def first_task(template_id: int, split: str = "test") -> str:
    """Id of the first task of a template in a split."""
    for task in load_tasks().split(split):
        if task.data["config"]["intent_template_id"] == template_id:
            return task.task_id
    raise LookupError(template_id)


async def play_expert(env: WebArenaEnv, task_id: str) -> tuple[float, dict[str, Any]]:
    """Run the task's expert through the env's actions; the final reward and info."""
    obs, _ = await env.areset(options={"task_id": task_id})
    assert env.task is not None
    info: dict[str, Any] = {}
    for step in env.expert_actions(env.task) or []:
        obs, reward, terminated, _, info = await env.astep(step(obs["text"]))
        assert "error" not in info, info
        if terminated:
            return reward, info
    raise AssertionError("the expert never stopped")


def test_make_resets_and_steps_with_errors_as_observations() -> None:
    env = agentgym.make("webarena-lite", split="test")
    try:
        obs, info = env.reset(options={"task_id": first_task(101)})
        assert obs["text"].startswith("Task: What is the price of")
        assert "URL: http://127.0.0.1:" in obs["text"] and "searchbox 'Search'" in obs["text"]
        assert info["sites"] == ["shopping"]
        for bad in ("click [999999]", "type [abc]", "goto [file:///etc/passwd]",
                    "goto [https://example.com/]", "", "\x00\x01", "select [1] [x]" * 500):
            obs, reward, terminated, truncated, info = env.step(bad)
            assert "Error" in obs["text"] and reward == 0.0 and not terminated
        obs, reward, terminated, _, info = env.step("stop [I do not know]")
        assert terminated and reward == 0.0 and info["success"] is False
    finally:
        env.close()


@pytest.mark.parametrize("template_id", [101, 107, 205, 311])
def test_expert_solves_a_task_of_each_eval_type(template_id: int) -> None:
    async def main() -> tuple[float, dict[str, Any]]:
        env = WebArenaEnv("test", prefetch=False)
        try:
            return await play_expert(env, first_task(template_id))
        finally:
            await env.aclose()

    reward, info = asyncio.run(main())
    assert reward == 1.0, info


def test_wrong_answer_and_wrong_page_score_zero() -> None:
    async def main() -> None:
        env = WebArenaEnv("test", prefetch=False)
        try:
            await env.areset(options={"task_id": first_task(107)})  # url_match task
            _, reward, done, _, info = await env.astep("stop []")
            assert done and reward == 0.0 and info["eval"] == {"url_match": 0.0}
            await env.areset(options={"task_id": first_task(103)})  # exact_match task
            _, reward, _, _, _ = await env.astep("stop [SKU-99999]")
            assert reward == 0.0
        finally:
            await env.aclose()

    asyncio.run(main())


async def _cart_rows(env: WebArenaEnv) -> list[str]:
    assert env.session is not None
    page = await env.session.context.new_page()
    try:
        await page.goto(env.site_urls["shopping"] + "/cart")
        return [r for r in str(await page.evaluate(f"() => {ROWS}")).splitlines() if r]
    finally:
        await page.close()


def test_eight_concurrent_episodes_see_only_their_own_cart(site_server: SiteServer) -> None:
    task_id = first_task(105)
    config = load_tasks().get(task_id).data["config"]
    wanted = config["eval"]["program_html"][0]["required_contents"]["must_include"][0]

    async def episode() -> tuple[float, list[str]]:
        env = WebArenaEnv("test", prefetch=False)
        try:
            reward, _ = await play_expert(env, task_id)
            return reward, await _cart_rows(env)
        finally:
            await env.aclose()

    async def main() -> None:
        results = await asyncio.gather(*(episode() for _ in range(8)))
        for reward, rows in results:
            assert reward == 1.0
            # one row, with this episode's quantity only (two writes would merge into 2x)
            assert len(rows) == 1 and rows[0].lower().startswith(wanted.lower() + " | "), rows
        later = WebArenaEnv("test", prefetch=False)
        try:
            await later.areset(options={"task_id": task_id})
            assert await _cart_rows(later) == ["No results found."]
        finally:
            await later.aclose()

    asyncio.run(main())


@pytest.mark.slow
def test_eight_concurrent_episodes_see_only_their_own_comment() -> None:
    task_id = first_task(503)
    config = load_tasks().get(task_id).data["config"]
    comment = config["instantiation_dict"]["comment"]
    url = config["eval"]["program_html"][0]["url"]

    async def comments(env: WebArenaEnv) -> int:
        assert env.session is not None
        page = await env.session.context.new_page()
        try:
            await page.goto(env.resolve(url))
            return json.dumps(await page.evaluate(f"() => {ROWS}")).count(comment)
        finally:
            await page.close()

    async def episode() -> tuple[float, int]:
        env = WebArenaEnv("test", prefetch=False)
        try:
            reward, _ = await play_expert(env, task_id)
            return reward, await comments(env)
        finally:
            await env.aclose()

    async def main() -> None:
        results = await asyncio.gather(*(episode() for _ in range(8)))
        assert results == [(1.0, 1)] * 8
        later = WebArenaEnv("test", prefetch=False)
        try:
            await later.areset(options={"task_id": task_id})
            assert await comments(later) == 0
        finally:
            await later.aclose()

    asyncio.run(main())
