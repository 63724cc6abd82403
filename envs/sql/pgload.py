"""Copy the bundled SQLite databases into PostgreSQL, one schema per database.

Types are translated so that the same gold SQL gives the same answers on both engines:
``INTEGER`` becomes ``bigint``, ``REAL`` becomes ``numeric`` (so ``ROUND(x, 2)`` works and sums
are exact) and ``TEXT`` becomes ``text COLLATE "C"`` (byte order, as SQLite sorts). Primary and
foreign keys are kept. :func:`create_readonly_role` then makes the login roles the executor
uses: one per schema (``<role>_<schema>``, see :func:`schema_role`) with ``USAGE`` on that schema
and ``SELECT`` on its tables only, every transaction read-only by default, and a
``statement_timeout``; and it revokes from ``PUBLIC`` the functions that act outside a read-only
transaction (:data:`REVOKED_FUNCTIONS`: signalling backends, large objects, ``pg_notify``).

Load into a database dedicated to agentgym: each schema is dropped and recreated, and the revoked
functions are revoked for every non-superuser of that database.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym.errors import missing_extra

REVOKED_FUNCTIONS = (
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_signal_backend",
    "pg_notify",
    "lo_creat",
    "lo_create",
    "lo_unlink",
    "lo_import",
    "lo_export",
    "lo_from_bytea",
    "lo_put",
    "lo_open",
    "lowrite",
    "lo_truncate",
    "lo_truncate64",
)
"""``pg_catalog`` functions no model query needs and whose effects reach past its transaction."""

__all__ = [
    "REVOKED_FUNCTIONS",
    "ColumnDef",
    "TableDef",
    "create_readonly_role",
    "load_database",
    "pg_type",
    "read_sqlite_tables",
    "schema_role",
    "table_checksums",
]


@dataclass(frozen=True)
class ColumnDef:
    """One column of a SQLite table."""

    name: str
    type: str
    not_null: bool
    pk_position: int


@dataclass(frozen=True)
class TableDef:
    """One SQLite table: its columns and foreign keys ``(column, table, column)``."""

    name: str
    columns: tuple[ColumnDef, ...]
    foreign_keys: tuple[tuple[str, str, str], ...]


def _psycopg() -> Any:
    """Import psycopg or explain which extra installs it."""
    try:
        import psycopg
    except ImportError as e:
        raise missing_extra("psycopg", "sql") from e
    return psycopg


def pg_type(sqlite_type: str) -> str:
    """PostgreSQL type for a declared SQLite column type."""
    declared = sqlite_type.upper()
    if "INT" in declared:
        return "bigint"
    if any(word in declared for word in ("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL")):
        return "numeric"
    if "BLOB" in declared:
        return "bytea"
    return 'text COLLATE "C"'


def read_sqlite_tables(path: str | Path) -> list[TableDef]:
    """Tables of a SQLite file in creation order, with columns and foreign keys."""
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro&immutable=1", uri=True)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
        ]
        tables = []
        for name in names:
            columns = tuple(
                ColumnDef(r[1], r[2], bool(r[3]), r[5])
                for r in conn.execute(f'PRAGMA table_info("{name}")')
            )
            fks = tuple(
                (r[3], r[2], r[4]) for r in conn.execute(f'PRAGMA foreign_key_list("{name}")')
            )
            tables.append(TableDef(name, columns, fks))
        return tables
    finally:
        conn.close()


def _create_table_sql(schema: str, table: TableDef) -> Any:
    """``CREATE TABLE`` for ``table`` inside ``schema``."""
    sql = _psycopg().sql
    parts = [
        sql.SQL("{} {}{}").format(
            sql.Identifier(c.name),
            sql.SQL(pg_type(c.type)),
            sql.SQL(" NOT NULL" if c.not_null else ""),
        )
        for c in table.columns
    ]
    keys = sorted((c for c in table.columns if c.pk_position), key=lambda c: c.pk_position)
    if keys:
        parts.append(
            sql.SQL("PRIMARY KEY ({})").format(
                sql.SQL(", ").join(sql.Identifier(c.name) for c in keys)
            )
        )
    for column, ref_table, ref_column in table.foreign_keys:
        parts.append(
            sql.SQL("FOREIGN KEY ({}) REFERENCES {}.{} ({})").format(
                sql.Identifier(column),
                sql.Identifier(schema),
                sql.Identifier(ref_table),
                sql.Identifier(ref_column),
            )
        )
    return sql.SQL("CREATE TABLE {}.{} ({})").format(
        sql.Identifier(schema), sql.Identifier(table.name), sql.SQL(", ").join(parts)
    )


def load_database(conn: Any, sqlite_path: str | Path, schema: str) -> dict[str, int]:
    """(Re)create ``schema`` from a SQLite file on an admin psycopg connection; row counts back.

    Runs in one transaction; foreign keys are created with the tables, so parents load first
    (the creation order of the SQLite file).
    """
    sql = _psycopg().sql
    tables = read_sqlite_tables(sqlite_path)
    source = sqlite3.connect(f"file:{Path(sqlite_path).resolve()}?mode=ro&immutable=1", uri=True)
    counts: dict[str, int] = {}
    try:
        with conn.transaction():
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
            for table in tables:
                conn.execute(_create_table_sql(schema, table))
                columns = sql.SQL(", ").join(sql.Identifier(c.name) for c in table.columns)
                copy_sql = sql.SQL("COPY {}.{} ({}) FROM STDIN").format(
                    sql.Identifier(schema), sql.Identifier(table.name), columns
                )
                count = 0
                with conn.cursor() as cur, cur.copy(copy_sql) as copy:
                    for row in source.execute(f'SELECT * FROM "{table.name}"'):
                        copy.write_row(row)
                        count += 1
                counts[table.name] = count
                conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(schema, table.name)))
    finally:
        source.close()
    return counts


def schema_role(role: str, schema: str) -> str:
    """Name of ``role``'s login role for one schema (PostgreSQL names hold 63 bytes)."""
    return f"{role}_{schema}"[:63]


def revoke_side_effect_functions(conn: Any) -> list[str]:
    """Revoke :data:`REVOKED_FUNCTIONS` (every overload) from ``PUBLIC``; return signatures."""
    sql = _psycopg().sql
    rows = conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p "
        "JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = 'pg_catalog' AND p.proname = ANY(%s)",
        (list(REVOKED_FUNCTIONS),),
    ).fetchall()
    for (signature,) in rows:
        conn.execute(sql.SQL("REVOKE EXECUTE ON FUNCTION {} FROM PUBLIC").format(
            sql.SQL(signature)))  # fmt: skip
    return [row[0] for row in rows]


def create_readonly_role(
    conn: Any,
    role: str,
    password: str | None,
    schemas: list[str],
    statement_timeout_ms: int = 5000,
) -> None:
    """Create or update ``role`` and its per-schema roles (``SELECT`` on one schema each).

    Every role logs in with ``password``, is read-only by default and has the same limits;
    ``role`` itself reads no schema, :class:`.postgres.PostgresExecutor` logs in as
    :func:`schema_role` of it. Also revokes :data:`REVOKED_FUNCTIONS` from ``PUBLIC``.
    """
    with conn.transaction():
        _readonly_role(conn, role, password, statement_timeout_ms)
        sql = _psycopg().sql
        for schema in schemas:  # the shared role of earlier versions read every schema
            conn.execute(sql.SQL("REVOKE ALL ON SCHEMA {} FROM {}").format(
                sql.Identifier(schema), sql.Identifier(role)))  # fmt: skip
            conn.execute(sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}").format(
                sql.Identifier(schema), sql.Identifier(role)))  # fmt: skip
        for schema in schemas:
            name = schema_role(role, schema)
            _readonly_role(conn, name, password, statement_timeout_ms)
            _grant_schema(conn, name, schema)
        revoke_side_effect_functions(conn)


def _grant_schema(conn: Any, role: str, schema: str) -> None:
    """``USAGE`` on ``schema`` and ``SELECT`` on its tables for ``role``."""
    sql = _psycopg().sql
    ident, schema_ident = sql.Identifier(role), sql.Identifier(schema)
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(schema_ident, ident))
    conn.execute(
        sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(schema_ident, ident)
    )


def _readonly_role(conn: Any, role: str, password: str | None, statement_timeout_ms: int) -> None:
    """Create or update one login role: no privileges, read-only transactions, limits."""
    sql = _psycopg().sql
    ident = sql.Identifier(role)
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if not exists:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(ident))
    conn.execute(
        sql.SQL(
            "ALTER ROLE {} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT "
            "NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 64 PASSWORD {}"
        ).format(ident, sql.Literal(password))
    )
    settings = {
        "default_transaction_read_only": "on",
        "statement_timeout": str(statement_timeout_ms),
        "idle_in_transaction_session_timeout": "60000",
        "work_mem": "16MB",
        "temp_file_limit": "262144",  # kB
    }
    for name, value in settings.items():
        conn.execute(
            sql.SQL("ALTER ROLE {} SET {} = {}").format(
                ident, sql.Identifier(name), sql.Literal(value)
            )
        )
    database = conn.execute("SELECT current_database()").fetchone()[0]
    conn.execute(
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), ident)
    )


def table_checksums(conn: Any, schema: str) -> dict[str, tuple[int, str]]:
    """``{table: (row count, md5 of all rows in key order)}`` for tamper checks in tests."""
    sql = _psycopg().sql
    names = [
        r[0]
        for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s "
            "ORDER BY table_name",
            (schema,),
        )
    ]
    sums = {}
    for name in names:
        table = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(name))
        row = conn.execute(
            sql.SQL(
                "SELECT COUNT(*), COALESCE(md5(string_agg(t::text, '|' ORDER BY t::text)), '') "
                "FROM {} t"
            ).format(table)
        ).fetchone()
        sums[name] = (row[0], row[1])
    return sums
