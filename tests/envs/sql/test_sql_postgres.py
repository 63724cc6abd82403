"""PostgreSQL backend: same data, same gold answers, same error classes as SQLite."""

from __future__ import annotations

import pytest

from agentgym.envs.sql import (
    ExecutionLimits,
    PostgresExecutor,
    SQLExecutionError,
    SQLForbiddenError,
    SqliteExecutor,
    SQLMultipleStatementsError,
    SQLSyntaxError,
    database_path,
    order_matters,
    results_match,
)
from agentgym.envs.sql.env import GOLD_TIMEOUT_S
from agentgym.envs.sql.pgload import pg_type, read_sqlite_tables
from agentgym.envs.sql.tasks import database_ids, read_tasks

pytestmark = pytest.mark.postgres


def test_type_translation() -> None:
    assert pg_type("INTEGER") == "bigint"
    assert pg_type("REAL") == "numeric"
    assert pg_type("TEXT") == 'text COLLATE "C"'
    tables = read_sqlite_tables(database_path("store"))
    assert [t.name for t in tables][:2] == ["categories", "suppliers"]
    assert ("category_id", "categories", "category_id") in tables[2].foreign_keys


def test_row_counts_match(ro_conninfo: str) -> None:
    for db in database_ids():
        with SqliteExecutor(database_path(db)) as lite, PostgresExecutor(ro_conninfo, db) as pg:
            for table in lite.table_names():
                sql = f"SELECT COUNT(*) FROM {table}"
                assert lite.execute(sql).scalar() == pg.execute(sql).scalar(), (db, table)


@pytest.mark.parametrize("db_id", database_ids())
def test_gold_queries_agree_across_engines(db_id: str, ro_conninfo: str) -> None:
    tasks = [t for t in read_tasks() if t["db_id"] == db_id]
    limits = ExecutionLimits(timeout_s=GOLD_TIMEOUT_S)  # as the env runs gold queries
    with SqliteExecutor(database_path(db_id), limits) as lite, PostgresExecutor(
        ro_conninfo, db_id, limits
    ) as pg:
        for task in tasks:
            if "postgres" not in task.get("engines", ["sqlite", "postgres"]):
                continue
            sql = task["gold_sql"]
            assert results_match(
                lite.execute(sql), pg.execute(sql), order_matters=order_matters(sql)
            ), task["task_id"]


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("SELECT 1; SELECT 2", SQLMultipleStatementsError),
        ("DELETE FROM products", SQLForbiddenError),
        ("SELECT nope FROM products", SQLExecutionError),
        ("SELECT name FROM products WHERE", SQLSyntaxError),
        ("", SQLSyntaxError),
    ],
)
def test_same_error_classes(ro_conninfo: str, sql: str, error: type) -> None:
    lite = SqliteExecutor(database_path("store"))
    with lite, PostgresExecutor(ro_conninfo, "store") as pg:
        for executor in (lite, pg):
            with pytest.raises(error):
                executor.execute(sql)


def test_caps_and_types(ro_conninfo: str) -> None:
    limits = ExecutionLimits(max_rows=5)
    with PostgresExecutor(ro_conninfo, "store", limits) as pg:
        result = pg.execute("SELECT product_id, price, name FROM products ORDER BY product_id")
        assert result.truncated and len(result.rows) == 5
        assert isinstance(result.rows[0][0], int) and isinstance(result.rows[0][1], float)
        assert pg.execute("SELECT SUM(stock) FROM products").scalar() == SqliteExecutor(
            database_path("store")
        ).execute("SELECT SUM(stock) FROM products").scalar()
        assert "CREATE TABLE products" in pg.schema_sql()
