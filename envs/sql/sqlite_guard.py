"""The SQLite authorizer policy and connection hardening used by :mod:`.executor`.

The authorizer sees every action a statement would take while SQLite compiles it. Only these
pass: reading tables and columns, ``SELECT`` itself, recursive CTEs, calls to functions outside
a small deny list, and a few pragmas that only describe the schema. Everything else (writes,
DDL, ``ATTACH`` and thus ``VACUUM INTO``, transactions, other pragmas) is denied with a reason
that the executor turns into an :class:`~agentgym.envs.sql.errors.SQLForbiddenError`.
"""

from __future__ import annotations

import sqlite3

from .base import ExecutionLimits

__all__ = ["DENIED_FUNCTIONS", "PROGRESS_OPS", "SAFE_PRAGMAS", "deny_reason", "harden"]

PROGRESS_OPS = 2000
"""Virtual-machine instructions between two deadline checks (about 10 to 50 microseconds)."""

SAFE_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "collation_list",
        "database_list",
    }
)
"""Pragmas that only describe the schema; any other pragma is denied."""

DENIED_FUNCTIONS = frozenset(
    {
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "fts3_tokenizer",
        "sqlite_offset",
        "printf",
        "format",
    }
)
"""Functions that load code, touch files or expose memory addresses, and ``printf``/``format``,
whose width argument (``printf('%.*c', 2000000000, 'x')``) loops for tens of seconds inside one
call, where no progress handler can interrupt it."""

_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, getattr(sqlite3, "SQLITE_RECURSIVE", 33)}
)

_ACTION_NAMES = dict(
    enumerate(
        (
            "COPY", "CREATE INDEX", "CREATE TABLE", "CREATE TEMP INDEX", "CREATE TEMP TABLE",
            "CREATE TEMP TRIGGER", "CREATE TEMP VIEW", "CREATE TRIGGER", "CREATE VIEW", "DELETE",
            "DROP INDEX", "DROP TABLE", "DROP TEMP INDEX", "DROP TEMP TABLE", "DROP TEMP TRIGGER",
            "DROP TEMP VIEW", "DROP TRIGGER", "DROP VIEW", "INSERT", "PRAGMA", "READ", "SELECT",
            "TRANSACTION", "UPDATE", "ATTACH", "DETACH", "ALTER TABLE", "REINDEX", "ANALYZE",
            "CREATE VTABLE", "DROP VTABLE", "FUNCTION", "SAVEPOINT", "RECURSIVE",
        )
    )
)
"""Authorizer action codes (``SQLITE_COPY`` is 0, ``SQLITE_RECURSIVE`` 33) by name."""


def deny_reason(action: int, arg1: str | None, arg2: str | None) -> str | None:
    """``None`` if the authorizer should allow this action, else a short description of it."""
    if action in _ALLOWED_ACTIONS:
        return None
    if action == sqlite3.SQLITE_FUNCTION:
        name = (arg2 or "").lower()
        if name in ("printf", "format"):
            return f"calling {name}() (use ROUND() and || to format values)"
        return f"calling {name}()" if name in DENIED_FUNCTIONS else None
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in SAFE_PRAGMAS:
            return None
        return f"PRAGMA {name}" + (" with a value" if arg2 is not None else "")
    if action == sqlite3.SQLITE_UPDATE and (arg1 or "").startswith("sqlite_"):
        return "a table-valued pragma function (use PRAGMA table_info(name) instead)"
    label = _ACTION_NAMES.get(action, f"action {action}")
    target = arg1 or arg2
    return f"{label} {target}" if target else label


def harden(conn: sqlite3.Connection, limits: ExecutionLimits) -> None:
    """Switch off extensions and writes, and tighten engine limits, before the authorizer."""
    disable = getattr(conn, "enable_load_extension", None)
    if disable is not None:
        disable(False)
    conn.execute("PRAGMA query_only = ON")
    conn.execute("PRAGMA trusted_schema = OFF")
    caps = {
        "SQLITE_LIMIT_LENGTH": limits.max_value_bytes,
        "SQLITE_LIMIT_SQL_LENGTH": max(limits.max_sql_chars * 4, 1000),
        "SQLITE_LIMIT_ATTACHED": 0,
        "SQLITE_LIMIT_EXPR_DEPTH": 200,
        "SQLITE_LIMIT_COMPOUND_SELECT": 100,
        "SQLITE_LIMIT_LIKE_PATTERN_LENGTH": 500,
        "SQLITE_LIMIT_VARIABLE_NUMBER": 100,
        "SQLITE_LIMIT_TRIGGER_DEPTH": 1,
        "SQLITE_LIMIT_WORKER_THREADS": 0,
    }
    setlimit = getattr(conn, "setlimit", None)  # Python 3.11+
    if setlimit is None:
        return
    for name, value in caps.items():
        category = getattr(sqlite3, name, None)
        if category is not None:
            setlimit(category, value)
