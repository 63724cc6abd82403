"""The twin's scripted experts solve its tasks, through the env, on the real sites and Chromium.

The default suite plays a sample: the train tasks that once aborted (no link to the current sort
of a status-filtered orders page) and the first train task of every template. The slow test plays
every task of every split, 60 tasks per test.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import pytest

from agentgym.envs.webarena.env import WebArenaEnv
from agentgym.envs.webarena.tasks import load_tasks

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("needs_chromium", "site_server")]

ONCE_ABORTED = ["1292", "1298", "1299", "1300", "1301"]
"""Train tasks whose expert clicked a sort link the page showed as plain text."""


async def _failures(split: str, task_ids: Iterable[str]) -> list[str]:
    """Every task id whose expert did not end with reward 1, with the reason."""
    env = WebArenaEnv(split, prefetch=False)
    bad: list[str] = []
    try:
        for task_id in task_ids:
            obs, _ = await env.areset(options={"task_id": task_id})
            assert env.task is not None
            reward, info = 0.0, {}
            try:
                for step in env.expert_actions(env.task) or []:
                    obs, reward, terminated, _, info = await env.astep(step(obs["text"]))
                    if "error" in info or terminated:
                        break
            except LookupError as e:
                info = {"error": str(e)}
            if reward != 1.0:
                bad.append(f"{task_id}: reward {reward} {info.get('error', '')}")
    finally:
        await env.aclose()
    return bad


def _first_of_each_template(split: str) -> list[str]:
    seen: dict[int, str] = {}
    for task in load_tasks().split(split):
        seen.setdefault(task.data["config"]["intent_template_id"], task.task_id)
    return list(seen.values())


def test_experts_solve_the_once_aborted_and_one_train_task_per_template() -> None:
    ids = list(dict.fromkeys(ONCE_ABORTED + _first_of_each_template("train")))
    assert asyncio.run(_failures("train", ids)) == []


def test_experts_solve_a_sample_of_the_official_template_instantiations() -> None:
    ids = [t.task_id for t in load_tasks().split("lite-test")][::6]
    assert asyncio.run(_failures("lite-test", ids)) == []


SHARD = 60
"""Tasks per slow test (each test stays well inside the suite's per-test timeout)."""
SPLITS = {"test": 165, "train": 660, "lite-test": 130, "lite-train": 440, "learn-test": 40,
          "learn-train": 50}
"""Splits played by the slow test, with an upper bound of their sizes (for the shards)."""


@pytest.mark.slow
@pytest.mark.parametrize(("split", "shard"), [(split, k) for split, n in SPLITS.items()
                                              for k in range(-(-n // SHARD))])
def test_experts_solve_every_task(split: str, shard: int) -> None:
    tasks = load_tasks()
    if split not in tasks.splits:
        pytest.skip(f"no {split} split (the [webarena] extra is not installed)")
    ids = [t.task_id for t in tasks.split(split)][shard * SHARD : (shard + 1) * SHARD]
    if not ids:
        pytest.skip(f"{split} has fewer than {shard * SHARD + 1} tasks")
    assert asyncio.run(_failures(split, ids)) == []
