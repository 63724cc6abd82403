"""Regressions of issue 9: infrastructure failures abort, sessions stay apart, bad bytes are
clear errors, and queries are budgeted by work rather than wall time."""

from __future__ import annotations

import dataclasses

import pytest

import agentgym
from agentgym import ToolCall
from agentgym.envs.sql import SqliteExecutor, database_path
from agentgym.envs.sql.base import ExecutionLimits
from agentgym.envs.sql.errors import (
    SQLConnectionError,
    SQLForbiddenError,
    SQLResourceLimitError,
    SQLResultTooLargeError,
    SQLSyntaxError,
    SQLTimeoutError,
    SQLWorkLimitError,
)
from agentgym.errors import InfrastructureError

HEAVY = (  # tens of millions of steps on any database
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) "
    "SELECT COUNT(*) FROM c"
)


def submit(query: str) -> list[ToolCall]:
    return [ToolCall("submit", {"query": query})]


@pytest.fixture(scope="module")
def flights() -> SqliteExecutor:
    with SqliteExecutor(database_path("flights")) as executor:
        yield executor


# -- bad bytes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("sql", ["SELECT '\ud800'", "SELECT 1 -- \udcff", "SELECT 1\x00"])
def test_unencodable_sql_is_a_syntax_error(flights: SqliteExecutor, sql: str) -> None:
    with pytest.raises(SQLSyntaxError, match="not valid text|NUL"):
        flights.execute(sql)


def test_typo_is_reported_as_syntax_error_not_read_only(flights: SqliteExecutor) -> None:
    with pytest.raises(SQLSyntaxError, match="syntax error at or near 'SELEC'"):
        flights.execute("SELEC name FROM airports")
    with pytest.raises(SQLForbiddenError, match="read-only"):  # a real write stays forbidden
        flights.execute("DELETE FROM airports")


def test_env_step_with_lone_surrogate_is_an_error_observation(caplog) -> None:  # type: ignore[no-untyped-def]
    env = agentgym.make("sql", split="train")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        [ToolCall("execute_sql", {"query": "SELECT '\ud800'"})]
    )
    assert "not valid text" in obs["text"] and not (terminated or truncated)
    assert "Traceback" not in caplog.text and "crashed" not in caplog.text
    env.close()


# -- work budget -------------------------------------------------------------------------------


def test_work_budget_gives_the_same_verdict_whatever_the_wall_clock(flights) -> None:  # type: ignore[no-untyped-def]
    budget = ExecutionLimits(timeout_s=600.0, max_steps=200_000)
    with pytest.raises(SQLWorkLimitError, match="200,000 steps"):
        flights.execute(HEAVY, limits=budget)
    # a work-limit error is still a timeout and a resource limit for callers that catch those
    assert issubclass(SQLWorkLimitError, SQLTimeoutError)
    assert issubclass(SQLTimeoutError, SQLResourceLimitError)
    small = flights.execute("SELECT COUNT(*) FROM airports", limits=budget)
    assert small.rows[0][0] > 0  # a light query fits the same budget


def test_env_budgets_sqlite_by_work() -> None:
    env = agentgym.make("sql", split="train", max_steps=100_000)
    assert env.unwrapped.timeout_s >= 30.0  # the wall clock only backs the budget up
    env.reset(seed=0)
    obs, *_ = env.step([ToolCall("execute_sql", {"query": HEAVY})])
    assert "steps of work" in obs["text"]
    env.close()


def test_gold_query_failure_aborts_the_episode() -> None:
    env = agentgym.make("sql", split="train")
    env.reset(seed=0)
    task = env.unwrapped.task
    broken = dataclasses.replace(task, data={**task.data, "gold_sql": "SELECT nope FROM nowhere"})
    env.unwrapped.task = broken
    obs, reward, terminated, truncated, info = env.step(submit(task.data["gold_sql"]))
    assert info["aborted"] and "reference query" in info["abort_reason"]
    assert reward == 0.0 and truncated and not terminated and "success" not in info
    env.close()


# -- PostgreSQL ---------------------------------------------------------------------------------

pg = pytest.mark.postgres


def _executor(conninfo: str, schema: str, **kw):  # type: ignore[no-untyped-def]
    from agentgym.envs.sql.postgres import PostgresExecutor

    return PostgresExecutor(conninfo, schema, ExecutionLimits(timeout_s=5.0), **kw)


@pg
def test_terminating_other_backends_is_denied_and_dead_connections_are_retried(
    ro_conninfo: str, pg_loaded
) -> None:  # type: ignore[no-untyped-def]
    import psycopg

    env = agentgym.make("sql", split="test", engine="postgres", postgres_conninfo=ro_conninfo)
    task = env.unwrapped.task_set[0]
    env.reset(options={"task_id": task.task_id})
    env.step([ToolCall("execute_sql", {"query": "SELECT 1"})])  # a pooled connection exists
    attacker = _executor(ro_conninfo, task.data["db_id"])
    with pytest.raises(SQLForbiddenError):
        attacker.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE usename = current_user AND pid <> pg_backend_pid()"
        )
    attacker.close()
    # the server kills every pooled connection anyway (a restart, an admin): retried, not scored
    with psycopg.connect(pg_loaded.conninfo(), autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE usename LIKE 'agentgym_ro%%'"
        ).fetchone()[0]
    assert killed >= 1
    _, reward, terminated, truncated, info = env.step(submit(task.data["gold_sql"]))
    assert (reward, terminated) == (1.0, True), info
    env.close()


@pg
def test_dead_server_aborts_instead_of_scoring(ro_conninfo: str) -> None:
    dead = ro_conninfo.replace("port=", "port=1").replace("host=", "host=/nonexistent")
    executor = _executor(dead, "bank")
    with pytest.raises(SQLConnectionError) as caught:
        executor.execute("SELECT 1")
    assert isinstance(caught.value, InfrastructureError) and caught.value.retryable


@pg
def test_advisory_lock_does_not_survive_the_statement(ro_conninfo: str) -> None:
    first, second = _executor(ro_conninfo, "bank"), _executor(ro_conninfo, "bank")
    first.execute("SELECT pg_advisory_lock(777)")  # a session lock, taken on a pooled connection
    assert second.execute("SELECT pg_try_advisory_lock(777)").rows == ((1,),)
    first.close()
    second.close()


@pg
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM hr.employees",
        "SELECT COUNT(*) FROM bank.accounts",
        "SELECT lo_creat(-1)",
        "SELECT pg_notify('agentgym', 'hello')",
        "SELECT pg_cancel_backend(1)",
    ],
)
def test_an_episode_sees_only_its_schema_and_no_side_effects(ro_conninfo: str, sql: str) -> None:
    executor = _executor(ro_conninfo, "clinic")
    with pytest.raises(SQLForbiddenError):
        executor.execute(sql)
    assert executor.execute("SELECT COUNT(*) FROM doctors").rows[0][0] > 0
    executor.close()


@pg
def test_temp_file_limit_is_a_resource_limit(ro_conninfo: str, pg_loaded) -> None:  # type: ignore[no-untyped-def]
    import psycopg

    from agentgym.envs.sql.pgload import schema_role

    role = schema_role("agentgym_ro", "school")
    with psycopg.connect(pg_loaded.conninfo(), autocommit=True) as admin:
        admin.execute(f'ALTER ROLE "{role}" SET temp_file_limit = 1024')
        admin.execute(f'ALTER ROLE "{role}" SET work_mem = 64')
    executor = _executor(ro_conninfo, "school")
    try:
        with pytest.raises(SQLResourceLimitError, match="temporary disk"):
            executor.execute(
                "SELECT g FROM generate_series(1, 2000000) g ORDER BY md5(g::text) LIMIT 1"
            )
    finally:
        executor.close()
        with psycopg.connect(pg_loaded.conninfo(), autocommit=True) as admin:
            admin.execute(f'ALTER ROLE "{role}" SET temp_file_limit = 262144')
            admin.execute(f'ALTER ROLE "{role}" RESET work_mem')


@pg
def test_deeply_nested_value_is_a_clear_error(ro_conninfo: str) -> None:
    executor = _executor(ro_conninfo, "bank")
    with pytest.raises(SQLResultTooLargeError, match="nested too deeply"):
        executor.execute("SELECT (repeat('[', 5000) || repeat(']', 5000))::jsonb")
    assert executor.execute("SELECT 1").rows == ((1,),)
    executor.close()


@pg
@pytest.mark.parametrize("sql", ["SELECT '\ud800'", "SELEC 1"])
def test_bad_text_is_a_syntax_error_on_postgres(ro_conninfo: str, sql: str) -> None:
    executor = _executor(ro_conninfo, "bank")
    with pytest.raises(SQLSyntaxError):
        executor.execute(sql)
    executor.close()
