"""Forking a WebArena twin episode: the branches hold copies of the sites' data and the page."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

import agentgym
from agentgym.envs.webarena.fork import copy_session
from agentgym.envs.webarena.sites.server import SiteServer
from agentgym.fork import fork_mode

from .test_webarena_env import _cart_rows, first_task

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("needs_chromium", "site_server")]


async def _expert(env, obs, steps):
    """Play ``steps`` (the expert's remaining steps) in ``env``; the last step's result."""
    result = None
    for step in steps:
        result = await env.astep(step(obs["text"]))
        obs = result[0]
        if result[2]:
            break
    return result


def test_a_fork_continues_the_episode_with_its_own_copy_of_the_site(
        site_server: SiteServer) -> None:
    async def main() -> None:
        env = agentgym.make("webarena-lite", split="test")
        children = []
        try:
            assert fork_mode(env) == "snapshot"
            obs, _ = await env.areset(options={"task_id": first_task(105)})  # add 5 to the cart
            steps = list(env.unwrapped.expert_actions(env.unwrapped.task))
            for step in steps[:2]:
                obs = (await env.astep(step(obs["text"])))[0]
            children = await env.afork(2)
            a, b = children
            for child in children:  # the same page, turn and task, not replayed: restored
                assert child.unwrapped.fork_origin == "snapshot"
                assert child.unwrapped._last_text == env.unwrapped._last_text
                assert child.turns == env.turns == 2
                assert child.unwrapped.session_id not in ("", env.unwrapped.session_id)
                assert child.unwrapped.session is not env.unwrapped.session
            assert a.unwrapped.session_id != b.unwrapped.session_id
            # branch a finishes the task: its own cart only
            _, reward, done, _, info = await _expert(a, obs, steps[2:])
            assert done and reward == 1.0 and info["success"]
            assert len(await _cart_rows(a.unwrapped)) == 1
            for other in (b, env):
                assert await _cart_rows(other.unwrapped) == ["No results found."]
            _, reward, done, _, _ = await b.astep("stop [done]")
            assert done and reward == 0.0
            # the parent is untouched by both, and can still finish on its own
            _, reward, done, _, _ = await _expert(env, obs, steps[2:])
            assert done and reward == 1.0
        finally:
            for child in children:
                await child.aclose()
            await env.aclose()

    asyncio.run(main())


def test_a_sync_fork_of_a_twin_episode(site_server: SiteServer) -> None:
    env = agentgym.make("webarena-lite", split="test")
    try:
        env.reset(options={"task_id": first_task(101)})
        env.step("scroll [down]")
        [child] = env.fork(1)
        try:
            assert child.unwrapped.fork_origin == "snapshot"
            assert child.unwrapped._last_text == env.unwrapped._last_text
            obs, *_ = child.step("stop [nothing]")
            assert child.unwrapped.done and not env.unwrapped.done
        finally:
            child.close()
    finally:
        env.close()


def test_session_copies_are_private_and_separate(site_server: SiteServer,
                                                 tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    (root / "abc").mkdir(parents=True)
    import sqlite3

    with sqlite3.connect(root / "abc" / "shopping.sqlite") as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
    new = copy_session(root, "abc")
    copied = root / new / "shopping.sqlite"
    assert (root / new).stat().st_mode & 0o777 == 0o700
    assert os.stat(copied).st_ino != os.stat(root / "abc" / "shopping.sqlite").st_ino
    with sqlite3.connect(copied) as conn:
        conn.execute("INSERT INTO t VALUES (2)")
    with sqlite3.connect(root / "abc" / "shopping.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 1
    with pytest.raises(agentgym.ForkError):
        copy_session(root, "../abc")
