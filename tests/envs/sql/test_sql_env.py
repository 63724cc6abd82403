"""The SQL env: expert play, scoring, text protocol, filters, and the PostgreSQL engine."""

from __future__ import annotations

import hashlib

import pytest

import agentgym
from agentgym import ToolCall
from agentgym.envs.sql import database_path
from agentgym.envs.sql.env import SQLEnv, load_tasks
from agentgym.envs.sql.tasks import database_ids


def play(env, actions):  # noqa: ANN001, ANN201
    result = None
    for action in actions:
        result = env.step(action)
    return result


@pytest.fixture(scope="module")
def env():  # noqa: ANN201
    e = agentgym.make("sql", split="train")
    yield e
    e.close()


def test_expert_scores_one_on_every_task() -> None:
    scores = {}
    for split in ("train", "test"):
        env = agentgym.make("sql/spider-lite-v0", split=split)
        for task in env.unwrapped.task_set:
            env.reset(options={"task_id": task.task_id})
            _, reward, terminated, _, info = play(env, env.unwrapped.expert_actions(task))
            scores[task.task_id] = (reward, terminated, info["success"])
        env.close()
    assert len(scores) == len(load_tasks()) >= 400
    assert set(scores.values()) == {(1.0, True, True)}


def test_first_observation_has_schema_and_question(env) -> None:  # noqa: ANN001
    obs, info = env.reset(options={"task_id": "sql-store-001"})
    assert obs["text"].startswith("Database: store (sqlite)")
    assert "CREATE TABLE orders" in obs["text"]
    assert obs["text"].endswith("Question: How many customers live in Osaka?")
    assert info["task_id"] == "sql-store-001"


def test_scoring_follows_spider_rules(env) -> None:  # noqa: ANN001
    env.reset(options={"task_id": "sql-store-012"})  # first and last names, no ORDER BY
    sql = "SELECT last_name, first_name FROM customers WHERE loyalty_tier IS NULL ORDER BY 1"
    _, reward, terminated, _, info = env.step([ToolCall("submit", {"query": sql})])
    assert (reward, terminated, info["success"]) == (1.0, True, True)

    env.reset(options={"task_id": "sql-store-013"})  # 5 most expensive, ordered
    same = "SELECT name, price FROM products ORDER BY price DESC LIMIT 5"
    assert play(env, [[ToolCall("submit", {"query": same})]])[1] == 1.0
    env.reset(options={"task_id": "sql-store-013"})
    ascending = ("SELECT name, price FROM (SELECT name, price FROM products ORDER BY price DESC "
                 "LIMIT 5) x ORDER BY price")
    assert play(env, [[ToolCall("submit", {"query": ascending})]])[1] == 0.0

    env.reset(options={"task_id": "sql-store-001"})
    extra_column = "SELECT COUNT(*), 1 FROM customers WHERE city = 'Osaka'"
    assert play(env, [[ToolCall("submit", {"query": extra_column})]])[1] == 0.0


def test_errors_are_observations(env) -> None:  # noqa: ANN001
    env.reset(options={"task_id": "sql-store-001"})
    obs, reward, terminated, _, info = env.step("<sql>SELECT nope FROM customers</sql>")
    assert not terminated and reward == 0.0
    assert "no such column" in obs["text"] and "no such column" in info["error"]
    obs, reward, terminated, _, info = env.step("<answer>DROP TABLE customers</answer>")
    assert terminated and reward == 0.0 and info["sql_error"] == "SQLForbiddenError"
    assert "read-only" in obs["text"]


def test_text_protocol(env) -> None:  # noqa: ANN001
    env.reset(options={"task_id": "sql-store-001"})
    obs, reward, terminated, *_ = env.step(
        "Let me look.\n<sql>SELECT COUNT(*) FROM customers WHERE city = 'Osaka'</sql>"
    )
    assert not terminated and "(1 row)" in obs["text"]
    obs, reward, terminated, *_ = env.step(
        "```sql\nSELECT COUNT(*) FROM customers WHERE city = 'Osaka'\n```"
    )
    assert terminated and reward == 1.0 and obs["text"].startswith("Submitted: correct.")
    env.reset(options={"task_id": "sql-store-001"})
    obs, reward, terminated, *_ = env.step("no SQL here")
    assert not terminated and "no tool call" in obs["text"]


def test_filters() -> None:
    easy = SQLEnv(split="train", difficulty="easy", single_value_only=True)
    assert len(easy.task_set) > 60
    assert all(t.data["difficulty"] == "easy" and t.data["single_value"] for t in easy.task_set)
    with pytest.raises(ValueError, match="difficulty"):
        SQLEnv(difficulty="impossible")
    with pytest.raises(ValueError, match="postgres_conninfo"):
        SQLEnv(engine="postgres", postgres_conninfo="")


def test_episodes_leave_files_untouched(env) -> None:  # noqa: ANN001
    before = {db: hashlib.sha256(database_path(db).read_bytes()).digest() for db in database_ids()}
    env.reset(seed=0)
    env.step("<sql>DELETE FROM orders</sql><sql>PRAGMA writable_schema = 1</sql>")
    env.step("<answer>SELECT 1; DROP TABLE orders</answer>")
    after = {db: hashlib.sha256(database_path(db).read_bytes()).digest() for db in database_ids()}
    assert after == before


@pytest.mark.postgres
def test_expert_on_postgres(ro_conninfo: str) -> None:
    env = agentgym.make("sql", split="test", engine="postgres", postgres_conninfo=ro_conninfo)
    for task in list(env.unwrapped.task_set)[::5]:
        obs, _ = env.reset(options={"task_id": task.task_id})
        assert "(postgres)" in obs["text"]
        _, reward, terminated, _, _ = play(env, env.unwrapped.expert_actions(task))
        assert (reward, terminated) == (1.0, True), task.task_id
    env.close()


@pytest.mark.postgres
def test_backend_and_dsn_aliases(ro_conninfo: str) -> None:
    env = agentgym.make("sql", split="test", backend="postgres", dsn=ro_conninfo)
    assert env.unwrapped.engine == "postgres" and env.unwrapped.conninfo == ro_conninfo
    task = env.unwrapped.task_set[0]
    env.reset(options={"task_id": task.task_id})
    _, reward, *_ = play(env, env.unwrapped.expert_actions(task))
    assert reward == 1.0
    env.close()


def test_easy_variant_registered_for_small_models() -> None:
    env = agentgym.make("sql-easy", split="train")
    tasks = list(env.unwrapped.task_set)
    assert tasks and all(t.data["difficulty"] == "easy" and t.data["single_value"] for t in tasks)
    env.close()


@pytest.mark.postgres
def test_postgres_episodes_fork_by_state_and_branches_run_concurrently(ro_conninfo: str) -> None:
    """A PostgreSQL episode only reads, through a thread-safe pool: branches share the
    executor, write nothing, and run side by side (issue 41)."""
    import concurrent.futures

    from agentgym.testing.fork_check import check_fork

    env = agentgym.make("sql", split="test", engine="postgres", postgres_conninfo=ro_conninfo)
    try:
        task = env.unwrapped.task_set[0]
        env.reset(options={"task_id": task.task_id})
        expert = list(env.unwrapped.expert_actions(task))
        env.step(expert[0])
        branches = env.fork(4)
        assert all(b.unwrapped.fork_origin == "state" for b in branches)
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda b: play(b, expert[1:]), branches))
        assert [r[1] for r in results] == [1.0] * 4
        assert not env.unwrapped.done and env.turns == 1
        assert check_fork(env, expert[0]) == "checked"
    finally:
        env.close()
