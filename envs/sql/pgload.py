"""Copy the bundled SQLite databases into PostgreSQL, one schema per database.

Types are translated so that the same gold SQL gives the same answers on both engines:
``INTEGER`` becomes ``bigint``, ``REAL`` becomes ``numeric`` (so ``ROUND(x, 2)`` works and sums
are exact) and ``TEXT`` becomes ``text COLLATE "C"`` (byte order, as SQLite sorts). Primary and
foreign keys are kept. :func:`create_readonly_role` then makes the login role the executor uses:
no privileges but ``USAGE`` on the schemas and ``SELECT`` on their tables, every transaction
read-only by default, and a ``statement_timeout``.

Load into a database dedicated to agentgym: each schema is dropped and recreated.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym.errors import missing_extra

__all__ = [
    "ColumnDef",
    "TableDef",
    "create_readonly_role",
    "load_database",
    "pg_type",
    "read_sqlite_tables",
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


def create_readonly_role(
    conn: Any,
    role: str,
    password: str | None,
    schemas: list[str],
    statement_timeout_ms: int = 5000,
) -> None:
    """Create or update ``role``: login, ``SELECT`` on ``schemas`` only, read-only by default."""
    sql = _psycopg().sql
    ident = sql.Identifier(role)
    with conn.transaction():
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
        for schema in schemas:
            schema_ident = sql.Identifier(schema)
            conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(schema_ident, ident))
            conn.execute(
                sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(
                    sql.Identifier(schema), ident
                )
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
