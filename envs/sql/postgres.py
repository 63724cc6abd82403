"""Run a model's SQL against PostgreSQL with the same interface and errors as SQLite.

Guards, outermost first: one statement only, whose first keyword is ``SELECT``, ``WITH``,
``VALUES`` or ``TABLE``; a login role that can only read (see :mod:`.pgload`); every statement
inside ``BEGIN READ ONLY`` ... ``ROLLBACK``, so even session settings it changes are undone;
``SET LOCAL statement_timeout`` on the server plus a client timer that cancels the query at the
deadline; and a server-side cursor (``DECLARE ... CURSOR``, which accepts only queries) fetched
in batches, so a huge result never crosses the wire.

Values come back as SQLite would give them: integral numerics as ``int``, other numerics as
``float``. Connections come from a small bounded pool (:mod:`.pool`); a broken one is dropped
and the next query opens a fresh one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from .base import ExecutionLimits, build_result, fetch_capped, read_statement
from .errors import (
    SQLError,
    SQLExecutionError,
    SQLForbiddenError,
    SQLResultTooLargeError,
    SQLSyntaxError,
    SQLTimeoutError,
)
from .pgload import _psycopg
from .pool import ConnectionPool
from .result import QueryResult

__all__ = ["PostgresExecutor", "sqlite_like"]

_READ_KEYWORDS = frozenset({"SELECT", "WITH", "VALUES", "TABLE"})


def sqlite_like(value: Any) -> Any:
    """Map a PostgreSQL value to the Python type SQLite would return for it."""
    if isinstance(value, Decimal):
        if value.is_finite() and value == value.to_integral_value():
            return int(value)
        return float(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def _convert(row: Sequence[Any]) -> tuple[Any, ...]:
    """Convert one fetched row with :func:`sqlite_like`."""
    return tuple(sqlite_like(v) for v in row)


class PostgresExecutor:
    """Read-only, time- and size-capped executor for one schema of a PostgreSQL database."""

    dialect = "postgres"

    def __init__(
        self,
        conninfo: str,
        schema: str,
        limits: ExecutionLimits | None = None,
        max_connections: int = 8,
    ) -> None:
        """``conninfo`` should log in as the read-only role; ``schema`` is the database id."""
        self._pg = _psycopg()
        self.conninfo = conninfo
        self.schema = schema
        self.limits = limits or ExecutionLimits()
        self._pool: ConnectionPool[Any] = ConnectionPool(
            self._connect, lambda conn: conn.close(), max_connections
        )

    def _connect(self) -> Any:
        """Open a new autocommit connection."""
        try:
            return self._pg.connect(self.conninfo, autocommit=True)
        except self._pg.Error as e:
            raise SQLExecutionError(f"cannot connect to PostgreSQL: {e}") from e

    def execute(self, sql: str, *, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run exactly one read-only statement and return its capped result.

        ``limits`` replaces the executor's own limits for this call only.
        """
        started = time.monotonic()
        limits = limits or self.limits
        statement = read_statement(sql, limits, "postgres", _READ_KEYWORDS)
        conn = self._pool.acquire()
        deadline = started + limits.timeout_s
        timer = threading.Timer(limits.timeout_s, self._cancel, args=(conn,))
        timer.daemon = True
        pg_sql = self._pg.sql
        try:
            conn.execute("BEGIN TRANSACTION READ ONLY")
            conn.execute(
                pg_sql.SQL("SET LOCAL statement_timeout = {}").format(
                    pg_sql.Literal(max(int(limits.timeout_s * 1000), 1))
                )
            )
            conn.execute(
                pg_sql.SQL("SET LOCAL search_path = {}").format(pg_sql.Identifier(self.schema))
            )
            timer.start()
            with conn.cursor(name="agentgym_query", scrollable=False) as cur:
                cur.execute(statement)
                columns = [d.name for d in cur.description or ()]
                rows, truncated = fetch_capped(cur.fetchmany, limits, deadline, _convert)
        except SQLError:
            raise
        except self._pg.Error as e:
            raise self._translate(e, time.monotonic() >= deadline - 0.01, limits) from e
        finally:
            timer.cancel()
            self._pool.release(conn, broken=not self._rollback(conn))
        return build_result(columns, rows, truncated, started)

    def _cancel(self, conn: Any) -> None:
        """Timer callback: ask the server to cancel the running query."""
        cancel = getattr(conn, "cancel_safe", None) or conn.cancel  # cancel_safe: psycopg 3.2+
        try:
            cancel()
        except self._pg.Error:  # the query may have ended meanwhile; nothing to do
            return

    def _rollback(self, conn: Any) -> bool:
        """End the transaction; False if the connection is no longer usable."""
        if conn.closed:
            return False
        try:
            conn.execute("ROLLBACK")
        except self._pg.Error:
            return False
        return True

    def _translate(self, error: Any, past_deadline: bool, limits: ExecutionLimits) -> SQLError:
        """Map a psycopg exception to the matching :class:`SQLError` subclass."""
        errors = self._pg.errors
        diag = getattr(error, "diag", None)
        message = (diag.message_primary if diag is not None else None) or str(error)
        message = message.strip().splitlines()[0] if message.strip() else type(error).__name__
        if isinstance(error, errors.QueryCanceled) or past_deadline:
            return SQLTimeoutError(
                f"query took longer than {limits.timeout_s:g} s and was stopped: "
                "add filters, avoid cross joins or add a LIMIT"
            )
        if isinstance(
            error, (errors.InsufficientPrivilege, errors.ReadOnlySqlTransaction)
        ) or "data-modifying" in message:
            return SQLForbiddenError(f"{message} (the database is read-only)")
        if isinstance(error, (errors.ProgramLimitExceeded, errors.OutOfMemory)):
            return SQLResultTooLargeError(message)
        if isinstance(error, errors.SyntaxError):
            return SQLSyntaxError(message)
        if isinstance(error, self._pg.OperationalError):
            return SQLExecutionError(f"database connection problem: {message}")
        return SQLExecutionError(message)

    def schema_sql(self) -> str:
        """``CREATE TABLE`` statements for the schema, as PostgreSQL reports its columns."""
        result = self.execute(
            "SELECT table_name, column_name, data_type, is_nullable "
            "FROM information_schema.columns WHERE table_schema = current_schema() "
            "ORDER BY table_name, ordinal_position",
            limits=self.limits.uncapped(),
        )
        tables: dict[str, list[str]] = {}
        for table, column, data_type, nullable in result.rows:
            null = "" if nullable == "YES" else " NOT NULL"
            tables.setdefault(table, []).append(f"    {column} {data_type}{null}")
        return "\n\n".join(
            f"CREATE TABLE {name} (\n" + ",\n".join(cols) + "\n);" for name, cols in tables.items()
        )

    def close(self) -> None:
        """Close the connections (borrowed ones as soon as their query ends)."""
        self._pool.close()

    def __enter__(self) -> PostgresExecutor:
        """Use as a context manager that closes on exit."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the executor."""
        self.close()
