"""Run a model's SQL against a bundled SQLite database without letting it change anything.

Layers, outermost first: one statement only, whose first keyword is a read (``SELECT``, ``WITH``,
``VALUES``, ``EXPLAIN`` or a whitelisted ``PRAGMA``); the file opened ``mode=ro&immutable=1``;
``PRAGMA query_only``; an authorizer that allows only reads and safe functions; engine limits
(no attached databases, 100 kB values); ``load_extension`` switched off; a progress handler that
interrupts the statement when it has used up its work budget (``ExecutionLimits.max_steps``
virtual-machine instructions, the same on an idle and a loaded machine) or passed its wall-clock
deadline; and a capped fetch of the rows.

Connections come from a small bounded pool (:mod:`.pool`), opened once and reused: opening and
hardening one costs about ten light queries, and SQLite releases the GIL while it steps, so
threads run queries in parallel instead of queueing on one connection's lock.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from . import sqlite_guard
from .base import ExecutionLimits, build_result, fetch_capped, read_statement
from .errors import (
    SQLDatabaseNotFound,
    SQLError,
    SQLExecutionError,
    SQLForbiddenError,
    SQLMultipleStatementsError,
    SQLResultTooLargeError,
    SQLSyntaxError,
    SQLTimeoutError,
    SQLWorkLimitError,
)
from .pool import ConnectionPool
from .result import QueryResult

__all__ = ["SqliteExecutor"]

_READ_KEYWORDS = frozenset({"SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA"})
_SYNTAX_MARKERS = ("syntax error", "incomplete input", "unrecognized token")


class _Guard:
    """Per-connection state read by the progress handler and the authorizer."""

    def __init__(self) -> None:
        self.deadline = float("inf")
        self.timed_out = False
        self.denied: str | None = None
        self.steps = 0
        self.max_steps: int | None = None
        self.over_budget = False

    def start(self, deadline: float, max_steps: int | None) -> None:
        """Arm the guard for one statement."""
        self.deadline, self.max_steps = deadline, max_steps
        self.steps, self.timed_out, self.over_budget, self.denied = 0, False, False, None

    def progress(self) -> int:
        """Progress handler: a non-zero return interrupts the running statement."""
        self.steps += sqlite_guard.PROGRESS_OPS
        if self.max_steps is not None and self.steps > self.max_steps:
            self.over_budget = True
            return 1
        if time.monotonic() > self.deadline:
            self.timed_out = True
            return 1
        return 0

    def authorize(self, action: int, arg1: str | None, arg2: str | None, *_: Any) -> int:
        """Authorizer: allow reads, record and deny everything else."""
        reason = sqlite_guard.deny_reason(action, arg1, arg2)
        if reason is None:
            return sqlite3.SQLITE_OK
        if self.denied is None:
            self.denied = reason
        return sqlite3.SQLITE_DENY


class SqliteExecutor:
    """Read-only, time- and size-capped executor for one SQLite database file."""

    dialect = "sqlite"

    def __init__(
        self, path: str | Path, limits: ExecutionLimits | None = None, max_connections: int = 8
    ) -> None:
        """Check that ``path`` exists; up to ``max_connections`` are opened as threads need them."""
        self.path = Path(path).resolve()
        if not self.path.is_file():
            raise SQLDatabaseNotFound(f"no SQLite database at {self.path}")
        self.limits = limits or ExecutionLimits()
        self._pool: ConnectionPool[tuple[sqlite3.Connection, _Guard]] = ConnectionPool(
            self._open, lambda pair: pair[0].close(), max_connections
        )

    def _open(self) -> tuple[sqlite3.Connection, _Guard]:
        """Open and harden a new connection."""
        uri = f"file:{quote(str(self.path))}?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        guard = _Guard()
        try:
            sqlite_guard.harden(conn, self.limits)
            conn.set_authorizer(guard.authorize)
            conn.set_progress_handler(guard.progress, sqlite_guard.PROGRESS_OPS)
        except sqlite3.Error as e:
            conn.close()
            raise SQLExecutionError(f"cannot open {self.path.name}: {e}") from e
        return conn, guard

    def execute(self, sql: str, *, limits: ExecutionLimits | None = None) -> QueryResult:
        """Run exactly one read-only statement and return its capped result.

        ``limits`` replaces the executor's own limits for this call only.
        """
        started = time.monotonic()
        limits = limits or self.limits
        statement = read_statement(sql, limits, "sqlite", _READ_KEYWORDS)
        with self._pool.lease() as (conn, guard):
            guard.start(started + limits.timeout_s, limits.max_steps)
            cursor = conn.cursor()
            try:
                cursor.execute(statement)
                columns = [d[0] for d in cursor.description or ()]
                rows, truncated = fetch_capped(cursor.fetchmany, limits, guard.deadline)
            except SQLError:
                raise
            except (sqlite3.Error, sqlite3.Warning, MemoryError, OverflowError, ValueError,
                    RecursionError) as e:
                raise self._translate(e, guard, limits) from e
            finally:
                cursor.close()
                guard.deadline = float("inf")
        return build_result(columns, rows, truncated, started)

    def _translate(
        self, error: BaseException, guard: _Guard, limits: ExecutionLimits
    ) -> SQLError:
        """Map an engine exception to the matching :class:`SQLError` subclass."""
        message = str(error)
        lowered = message.lower()
        if guard.over_budget:
            return SQLWorkLimitError(
                f"query did more than {limits.max_steps:,} steps of work and was stopped: "
                "add filters, avoid cross joins or add a LIMIT"
            )
        if guard.timed_out or lowered == "interrupted":
            return SQLTimeoutError(
                f"query took longer than {limits.timeout_s:g} s and was stopped: "
                "add filters, avoid cross joins or add a LIMIT"
            )
        if guard.denied is not None:
            return SQLForbiddenError(f"{guard.denied} is not allowed: the database is read-only")
        if "one statement at a time" in lowered:
            return SQLMultipleStatementsError("send exactly one statement per query")
        if isinstance(error, MemoryError) or "too big" in lowered or "out of memory" in lowered:
            return SQLResultTooLargeError(
                f"a value grew past the {self.limits.max_value_bytes}-byte limit ({message})"
            )
        if "readonly" in lowered or "read-only" in lowered or "not authorized" in lowered:
            return SQLForbiddenError(f"the database is read-only ({message})")
        if "attached" in lowered:
            return SQLForbiddenError(f"ATTACH is not allowed ({message})")
        if any(marker in lowered for marker in _SYNTAX_MARKERS):
            return SQLSyntaxError(message)
        return SQLExecutionError(message)

    def schema_sql(self) -> str:
        """The ``CREATE TABLE`` statements of the database, in file order."""
        result = self.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL "
            "AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
            limits=self.limits.uncapped(),
        )
        return ";\n\n".join(row[0] for row in result.rows) + ";"

    def table_names(self) -> list[str]:
        """Names of the user tables, in file order."""
        result = self.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
            limits=self.limits.uncapped(),
        )
        return [row[0] for row in result.rows]

    def close(self) -> None:
        """Close the connections (borrowed ones as soon as their query ends)."""
        self._pool.close()

    def __enter__(self) -> SqliteExecutor:
        """Use as a context manager that closes on exit."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the executor."""
        self.close()
