"""The SQLite executor: results, caps, error classes, threads, and the text renderer."""

from __future__ import annotations

import hashlib
import threading
import time
from pathlib import Path

import pytest

from agentgym.envs.sql import (
    ExecutionLimits,
    QueryResult,
    SQLDatabaseNotFound,
    SQLError,
    SQLExecutionError,
    SQLExecutor,
    SQLForbiddenError,
    SqliteExecutor,
    SQLMultipleStatementsError,
    SQLResultTooLargeError,
    SQLSyntaxError,
    SQLTimeoutError,
    database_path,
    render_result,
)
from agentgym.envs.sql.tasks import database_ids

BOMB = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "


@pytest.fixture(scope="module")
def store() -> SqliteExecutor:
    with SqliteExecutor(database_path("store"), ExecutionLimits(timeout_s=0.5)) as executor:
        yield executor


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_select_returns_columns_rows_and_time(store: SqliteExecutor) -> None:
    result = store.execute("SELECT customer_id, email FROM customers ORDER BY customer_id LIMIT 3")
    assert result.columns == ("customer_id", "email")
    assert [row[0] for row in result.rows] == [1, 2, 3]
    assert not result.truncated
    assert 0 <= result.elapsed_s < 5.0
    assert isinstance(store, SQLExecutor)


def test_row_cap_truncates(store: SqliteExecutor) -> None:
    capped = SqliteExecutor(database_path("store"), ExecutionLimits(max_rows=10))
    result = capped.execute("SELECT * FROM order_items")
    assert len(result.rows) == 10 and result.truncated
    assert not capped.execute("SELECT * FROM suppliers LIMIT 10").truncated
    capped.close()


def test_byte_cap_truncates_or_refuses() -> None:
    capped = SqliteExecutor(database_path("store"), ExecutionLimits(max_bytes=2000))
    result = capped.execute("SELECT email FROM customers")
    assert result.truncated and 0 < sum(len(r[0]) for r in result.rows) <= 2000
    with pytest.raises(SQLResultTooLargeError, match="first row"):
        capped.execute("SELECT zeroblob(5000)")
    capped.close()


def test_value_length_limit(store: SqliteExecutor) -> None:
    with pytest.raises(SQLResultTooLargeError):
        store.execute("SELECT randomblob(2000000000)")


def test_timeout_interrupts_within_margin(store: SqliteExecutor) -> None:
    started = time.monotonic()
    with pytest.raises(SQLTimeoutError, match="longer than 0.5 s"):
        store.execute(BOMB + "SELECT COUNT(*) FROM c")
    # the bomb never ends on its own: any bound well under 'forever' shows the interrupt worked,
    # a loose one keeps this true on a loaded machine
    assert time.monotonic() - started < 0.5 + 5.0
    assert store.execute("SELECT 1").rows == ((1,),)  # the connection is still usable


def test_unbounded_stream_is_capped_not_timed_out(store: SqliteExecutor) -> None:
    result = store.execute(BOMB + "SELECT x FROM c")
    assert result.truncated and len(result.rows) == store.limits.max_rows


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        ("SELEC name FROM products", SQLSyntaxError, "syntax error at or near .SELEC"),
        ("SELECT name FROM", SQLSyntaxError, "incomplete input"),
        ("SELECT name FROM products WHERE", SQLSyntaxError, "incomplete"),
        ("SELECT nope FROM products", SQLExecutionError, "no such column"),
        ("SELECT * FROM nope", SQLExecutionError, "no such table"),
        ("SELECT 1; SELECT 2", SQLMultipleStatementsError, "one statement"),
        ("", SQLSyntaxError, "empty"),
        ("DELETE FROM products", SQLForbiddenError, "DELETE"),
        ("WITH x AS (SELECT 1) DELETE FROM products", SQLForbiddenError, "DELETE"),
        ("PRAGMA query_only = 0", SQLForbiddenError, "PRAGMA query_only"),
        ("SELECT load_extension('x')", SQLForbiddenError, "load_extension"),
        ("SELECT * FROM pragma_table_info('products')", SQLForbiddenError, "PRAGMA table_info"),
    ],
)
def test_error_classes(store: SqliteExecutor, sql: str, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        store.execute(sql)


def test_schema_inspection_is_allowed(store: SqliteExecutor) -> None:
    info = store.execute("PRAGMA table_info(products)")
    assert "price" in [row[1] for row in info.rows]
    assert store.execute("EXPLAIN QUERY PLAN SELECT * FROM products").rows
    assert "CREATE TABLE products" in store.schema_sql()
    assert store.table_names()[0] == "categories"
    master = store.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    assert len(master.rows) == 7


def test_threads_share_an_executor(store: SqliteExecutor) -> None:
    expected = store.execute("SELECT COUNT(*) FROM orders").scalar()
    results: list[object] = []

    def worker() -> None:
        for _ in range(20):
            results.append(store.execute("SELECT COUNT(*) FROM orders").scalar())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 80


def test_missing_database_and_closed_executor(tmp_path: Path) -> None:
    with pytest.raises(SQLDatabaseNotFound):
        SqliteExecutor(tmp_path / "nope.sqlite")
    with pytest.raises(SQLDatabaseNotFound):
        database_path("../etc/passwd")
    executor = SqliteExecutor(database_path("hr"))
    executor.execute("SELECT 1")
    executor.close()
    with pytest.raises(SQLError, match="closed"):
        executor.execute("SELECT 1")


def test_files_are_not_modified() -> None:
    before = {db: sha256(database_path(db)) for db in database_ids()}
    for db in database_ids():
        with SqliteExecutor(database_path(db)) as executor:
            for table in executor.table_names():
                executor.execute(f"SELECT * FROM {table}")
    assert {db: sha256(database_path(db)) for db in database_ids()} == before


def test_render_result() -> None:
    result = QueryResult(
        ("name", "price", "note"),
        tuple((f"item {i}", i * 1.5, None if i % 2 else "x" * 60) for i in range(30)),
    )
    text = render_result(result, max_rows=5, max_cell=20)
    lines = text.splitlines()
    assert lines[0].split(" | ") == ["name  ", "price", "note"]
    assert "NULL" in text and "…" in text
    assert lines[-1] == "(5 of 30 rows shown)"
    assert len(render_result(result, max_chars=300)) <= 300
    assert render_result(QueryResult(("a",), ())).endswith("(0 rows)")
    assert render_result(QueryResult(("a",), ((1,),), truncated=True)).endswith(
        "(1 of more than 1 rows shown)"
    )
    assert render_result(QueryResult(("n",), ((3,),))) == "n\n-\n3\n(1 row)"
