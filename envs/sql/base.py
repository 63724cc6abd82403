"""What every SQL executor shares: its limits, its interface and the capped row fetch."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from .errors import SQLForbiddenError, SQLResultTooLargeError, SQLSyntaxError, SQLTimeoutError
from .result import QueryResult
from .statements import Dialect, first_keyword, single_statement

SQL_STATEMENT_KEYWORDS = frozenset(
    {
        "ABORT", "ALTER", "ANALYZE", "ATTACH", "BEGIN", "CALL", "CHECKPOINT", "CLOSE", "CLUSTER",
        "COMMENT", "COMMIT", "COPY", "CREATE", "DEALLOCATE", "DECLARE", "DELETE", "DETACH",
        "DISCARD", "DO", "DROP", "END", "EXECUTE", "EXPLAIN", "FETCH", "GRANT", "IMPORT",
        "INSERT", "LISTEN", "LOAD", "LOCK", "MERGE", "MOVE", "NOTIFY", "PRAGMA", "PREPARE",
        "REASSIGN", "REFRESH", "REINDEX", "RELEASE", "REPLACE", "RESET", "REVOKE", "ROLLBACK",
        "SAVEPOINT", "SECURITY", "SELECT", "SET", "SHOW", "START", "TABLE", "TRUNCATE",
        "UNLISTEN", "UPDATE", "UPSERT", "VACUUM", "VALUES", "WITH",
    }
)  # fmt: skip
"""First words of SQL statements in either dialect: any other first word is a syntax error."""

__all__ = [
    "SQL_STATEMENT_KEYWORDS",
    "ExecutionLimits",
    "SQLExecutor",
    "build_result",
    "fetch_capped",
    "value_size",
]


@dataclass(frozen=True)
class ExecutionLimits:
    """Caps applied to every statement an executor runs."""

    timeout_s: float = 5.0
    """Wall-clock limit for executing and fetching one statement, in seconds."""
    max_steps: int | None = None
    """Work budget of one statement in SQLite virtual-machine instructions (``None``: none).

    Counted by the progress handler, so a query gets the same verdict on an idle and on a
    loaded machine; ``timeout_s`` then only backs it up. PostgreSQL has no such counter and
    ignores it."""
    max_rows: int = 1000
    """Rows kept; a statement returning more comes back with ``truncated=True``."""
    max_bytes: int = 1_000_000
    """Approximate bytes of row data kept (text and blobs by length, 8 per other value)."""
    max_value_bytes: int = 100_000
    """Largest single string or blob the engine may build (SQLite ``SQLITE_LIMIT_LENGTH``).

    It also bounds how long one function call can run (``instr``, ``LIKE`` on a 100 kB value
    take well under a second), which matters because no timeout can interrupt a call. Set per
    connection, so a per-call ``limits`` override does not change it."""
    max_sql_chars: int = 100_000
    """Longest statement accepted."""

    def uncapped(self) -> ExecutionLimits:
        """These limits without the row and byte caps (for trusted internal queries)."""
        return replace(self, max_rows=10**9, max_bytes=10**12)


@runtime_checkable
class SQLExecutor(Protocol):
    """Runs one read-only statement against one database and returns a capped result."""

    dialect: str
    """``"sqlite"`` or ``"postgres"``."""

    def execute(self, sql: str, *, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run ``sql`` (exactly one statement) or raise an :class:`SQLError` subclass.

        ``limits`` replaces the executor's own limits for this call only.
        """
        ...

    def schema_sql(self) -> str:
        """The ``CREATE TABLE`` statements of the database, for a prompt."""
        ...

    def close(self) -> None:
        """Release connections; the executor may not be used afterwards."""
        ...


def value_size(value: Any) -> int:
    """Approximate size of one cell in bytes, as counted against ``max_bytes``."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    return 8


def fetch_capped(
    fetchmany: Callable[[int], Sequence[Sequence[Any]]],
    limits: ExecutionLimits,
    deadline: float,
    convert: Callable[[Sequence[Any]], tuple[Any, ...]] = tuple,
) -> tuple[list[tuple[Any, ...]], bool]:
    """Fetch rows in batches until the result ends or a cap is hit.

    Returns the rows kept and whether rows were left behind. Never fetches more than one batch
    past ``limits.max_rows``, so an unbounded result costs no more than a bounded one.

    Raises:
        SQLResultTooLargeError: the first row alone is over ``limits.max_bytes``.
        SQLTimeoutError: ``deadline`` (a ``time.monotonic()`` value) passed between batches.
    """
    rows: list[tuple[Any, ...]] = []
    used = 0
    batch = 64
    while True:
        if time.monotonic() > deadline:
            raise SQLTimeoutError(
                f"query took longer than {limits.timeout_s:g} s while fetching rows: "
                "add filters or a LIMIT"
            )
        chunk = fetchmany(min(batch, limits.max_rows + 1 - len(rows)))
        if not chunk:
            return rows, False
        for raw in chunk:
            if len(rows) >= limits.max_rows:
                return rows, True
            row = convert(raw)
            size = sum(value_size(v) for v in row)
            if used + size > limits.max_bytes:
                if not rows:
                    raise SQLResultTooLargeError(
                        f"the first row is about {size} bytes, over the {limits.max_bytes}-byte "
                        "cap: select fewer or shorter columns"
                    )
                return rows, True
            used += size
            rows.append(row)
        batch = min(batch * 4, 4096)


def build_result(
    columns: Sequence[str], rows: list[tuple[Any, ...]], truncated: bool, started: float
) -> QueryResult:
    """Assemble a :class:`QueryResult`, measuring elapsed time from ``started``."""
    return QueryResult(
        columns=tuple(columns),
        rows=tuple(rows),
        truncated=truncated,
        elapsed_s=time.monotonic() - started,
    )


def read_statement(
    sql: str, limits: ExecutionLimits, dialect: Dialect, read_keywords: frozenset[str]
) -> str:
    """The one statement in ``sql`` if it is short enough and starts with a read keyword.

    Raises :class:`SQLForbiddenError` for a write or other non-read statement and
    :class:`SQLSyntaxError` for text that is not SQL (an unknown first word such as ``SELEC``,
    characters that cannot be encoded, such as a lone surrogate); shared by both executors.
    """
    if not isinstance(sql, str):
        raise SQLSyntaxError(f"query must be text, not {type(sql).__name__}")
    if len(sql) > limits.max_sql_chars:
        raise SQLForbiddenError(
            f"query is {len(sql)} characters, over the {limits.max_sql_chars} limit"
        )
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError as e:
        raise SQLSyntaxError(
            f"the query holds a character that is not valid text ({e.object[e.start]!r} at "
            f"position {e.start}): send plain UTF-8 SQL"
        ) from None
    if "\0" in sql:
        raise SQLSyntaxError("the query holds a NUL character: send plain SQL text")
    statement = single_statement(sql, dialect)
    keyword = first_keyword(statement, dialect)
    if keyword not in read_keywords and keyword not in SQL_STATEMENT_KEYWORDS:
        word = keyword or statement.split(None, 1)[0][:30]
        raise SQLSyntaxError(f"syntax error at or near {word!r}: a query starts with SELECT")
    if keyword not in read_keywords:
        raise SQLForbiddenError(
            f"{keyword or 'this statement'} is not allowed: the database is read-only, "
            "use SELECT"
        )
    return statement
