"""Run a model's SQL against PostgreSQL with the same interface and errors as SQLite.

Guards, outermost first: one statement only, whose first keyword is ``SELECT``, ``WITH``,
``VALUES`` or ``TABLE``; a login role that can only read (see :mod:`.pgload`); every statement
inside ``BEGIN READ ONLY`` ... ``ROLLBACK``, so even session settings it changes are undone;
``SET LOCAL statement_timeout`` on the server plus a client timer that cancels the query at the
deadline; and a server-side cursor (``DECLARE ... CURSOR``, which accepts only queries) fetched
in batches, so a huge result never crosses the wire.

Isolation between episodes: the executor logs in as the schema's own role
(``<role>_<schema>``, made by :func:`.pgload.create_readonly_role`), which can read that schema
only; after every statement the pooled connection is reset with ``DISCARD ALL`` (advisory locks,
prepared statements, ``LISTEN``, temporary objects and settings do not outlive the statement);
and the loader revokes the functions with effects outside the transaction (signalling other
backends, large objects, ``pg_notify``).

Values come back as SQLite would give them: integral numerics as ``int``, other numerics as
``float``. Connections come from a small bounded pool (:mod:`.pool`). A connection that turns
out dead (the server restarted, the backend was terminated) is dropped together with the other
idle ones and the statement is retried once on a fresh connection, which is safe because it
only reads; if that fails too, :class:`.errors.SQLConnectionError` (an
:class:`~agentgym.errors.InfrastructureError`) tells the env to abort the episode.
"""

from __future__ import annotations

import getpass
import os
import threading
import time
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from .base import ExecutionLimits, build_result, fetch_capped, read_statement
from .errors import (
    SQLConnectionError,
    SQLError,
    SQLExecutionError,
    SQLForbiddenError,
    SQLResourceLimitError,
    SQLResultTooLargeError,
    SQLSyntaxError,
    SQLTimeoutError,
)
from .pgload import _psycopg, schema_role
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
        per_schema_role: bool = True,
    ) -> None:
        """``conninfo`` logs in as the read-only role; ``schema`` is the database id.

        With ``per_schema_role`` (the default) the executor logs in as that role's per-schema
        role instead (same password), so a query can read its own schema only.
        """
        self._pg = _psycopg()
        self.schema = schema
        if per_schema_role:
            params = self._pg.conninfo.conninfo_to_dict(conninfo)
            user = str(params.get("user") or os.environ.get("PGUSER") or getpass.getuser())
            conninfo = self._pg.conninfo.make_conninfo(conninfo, user=schema_role(user, schema))
        self.conninfo = conninfo
        self.limits = limits or ExecutionLimits()
        self._pool: ConnectionPool[Any] = ConnectionPool(
            self._connect, lambda conn: conn.close(), max_connections
        )

    def _connect(self) -> Any:
        """Open a new autocommit connection."""
        try:
            # No server-side prepared statements: DISCARD ALL drops them after every query.
            return self._pg.connect(self.conninfo, autocommit=True, prepare_threshold=None)
        except self._pg.Error as e:
            raise SQLConnectionError(f"cannot connect to PostgreSQL: {e}") from e

    def execute(self, sql: str, *, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run exactly one read-only statement and return its capped result.

        ``limits`` replaces the executor's own limits for this call only. A dead connection is
        replaced and the statement retried once before :class:`SQLConnectionError` is raised.
        """
        limits = limits or self.limits
        statement = read_statement(sql, limits, "postgres", _READ_KEYWORDS)
        try:
            return self._execute(statement, limits)
        except SQLConnectionError:
            self._pool.discard_idle()  # killed together, most likely; open fresh ones
            return self._execute(statement, limits)

    def _execute(self, statement: str, limits: ExecutionLimits) -> QueryResult:
        """One attempt at running a checked statement."""
        started = time.monotonic()
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
        except RecursionError as e:  # a deeply nested value (jsonb, arrays) while converting
            raise SQLResultTooLargeError(
                "a value in the result is nested too deeply to read: select a part of it"
            ) from e
        except (UnicodeError, ValueError) as e:
            raise SQLExecutionError(f"the result could not be read: {e}") from e
        finally:
            timer.cancel()
            self._pool.release(conn, broken=not self._reset(conn))
        return build_result(columns, rows, truncated, started)

    def _cancel(self, conn: Any) -> None:
        """Timer callback: ask the server to cancel the running query."""
        cancel = getattr(conn, "cancel_safe", None) or conn.cancel  # cancel_safe: psycopg 3.2+
        try:
            cancel()
        except self._pg.Error:  # the query may have ended meanwhile; nothing to do
            return

    def _reset(self, conn: Any) -> bool:
        """Roll back and ``DISCARD ALL``; False if the connection is no longer usable.

        ``DISCARD ALL`` drops what a statement could leave on the session outside its
        transaction: session advisory locks, ``LISTEN``, prepared statements, temporary
        tables, settings.
        """
        if conn.closed:
            return False
        try:
            conn.execute("ROLLBACK")
            conn.execute("DISCARD ALL")
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
        if isinstance(error, (errors.ConfigurationLimitExceeded, errors.DiskFull)):
            return SQLResourceLimitError(
                f"the query needed more temporary disk space than allowed ({message}): "
                "add filters, avoid large sorts and cross joins, or add a LIMIT"
            )
        if isinstance(error, errors.SyntaxError):
            return SQLSyntaxError(message)
        if isinstance(error, self._pg.OperationalError):
            return SQLConnectionError(f"database connection problem: {message}")
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
