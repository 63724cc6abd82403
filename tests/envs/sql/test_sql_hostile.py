"""Hostile statements against both executors: nothing may change, everything ends in time.

Statements are generated from templates over every table of every bundled database (writes,
DDL, ATTACH, pragmas, extensions, multi-statement and comment tricks, recursive and cross-join
bombs, huge values). A write must fail with an ``SQLError``; an abusive read may instead return
a capped result. Each must finish within the timeout plus a margin, and afterwards every SQLite
file has the same sha256 and every PostgreSQL table the same row count and checksum.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentgym.envs.sql import (
    ExecutionLimits,
    PostgresExecutor,
    SQLError,
    SQLExecutor,
    SqliteExecutor,
    database_path,
)
from agentgym.envs.sql.tasks import database_ids

TIMEOUT_S = 0.25
MARGIN_S = 3.0  # loose: a hostile query runs for ever without the limit; load must not fail it
DATABASES = database_ids()


WRITE_TEMPLATES = (
    "INSERT INTO {t} DEFAULT VALUES",
    "INSERT INTO {t} SELECT * FROM {t}",
    "INSERT INTO {t} SELECT * FROM {t} RETURNING *",
    "REPLACE INTO {t} SELECT * FROM {t}",
    "UPDATE {t} SET {c} = NULL",
    "UPDATE {t} SET {c} = {c} RETURNING *",
    "DELETE FROM {t}",
    "DELETE FROM {t} WHERE 1 = 1 RETURNING *",
    "DROP TABLE {t}",
    "ALTER TABLE {t} RENAME TO {t}_old",
    "ALTER TABLE {t} ADD COLUMN evil TEXT",
    "CREATE TABLE {t}_copy AS SELECT * FROM {t}",
    "CREATE INDEX evil_idx ON {t} ({c})",
    "CREATE VIEW evil_view AS SELECT * FROM {t}",
    "CREATE TEMP TABLE evil_tmp AS SELECT * FROM {t}",
    "CREATE TRIGGER evil_trg AFTER INSERT ON {t} BEGIN DELETE FROM {t}; END",
    "WITH x AS (SELECT 1) DELETE FROM {t}",
    "WITH x AS (SELECT 1) UPDATE {t} SET {c} = NULL",
    "SELECT * FROM {t}; DROP TABLE {t}",
    "SELECT 1;DELETE FROM {t}",
    "SELECT * FROM {t} /* harmless */; UPDATE {t} SET {c} = NULL",
    "SELECT * FROM {t} -- comment\n; DROP TABLE {t}",
    "SELECT '; DROP TABLE {t}; --' FROM {t}; DROP TABLE {t}",
    "/* SELECT */ DROP TABLE {t}",
    "-- SELECT\nDELETE FROM {t}",
    "(DELETE FROM {t})",
    "SELECT 1 FROM {t}\x00; DROP TABLE {t}",
)
"""Per table: every statement would change the database."""

SQLITE_WRITES = (
    "ATTACH DATABASE ':memory:' AS m",
    "ATTACH DATABASE '{other}' AS other",
    "ATTACH DATABASE '{tmp}/new.sqlite' AS fresh",
    "ATTACH 'file:{tmp}/uri.sqlite?mode=rwc' AS u",
    "DETACH DATABASE main",
    "VACUUM",
    "VACUUM INTO '{tmp}/copy.sqlite'",
    "REINDEX",
    "ANALYZE",
    "BEGIN IMMEDIATE",
    "COMMIT",
    "SAVEPOINT s",
    "PRAGMA query_only = 0",
    "PRAGMA query_only = OFF",
    "PRAGMA writable_schema = 1",
    "PRAGMA journal_mode = WAL",
    "PRAGMA user_version = 7",
    "PRAGMA main.user_version = 7",
    "PRAGMA schema_version = 1",
    "PRAGMA foreign_keys = 0",
    "PRAGMA locking_mode = EXCLUSIVE",
    "PRAGMA temp_store_directory = '/tmp'",
    "PRAGMA wal_checkpoint",
    "PRAGMA optimize",
    "PRAGMA trusted_schema = 1",
    "SELECT * FROM pragma_writable_schema",
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT load_extension('libc.so.6', 'system')",
    "SELECT writefile('{tmp}/out.txt', 'x')",
    "SELECT readfile('/etc/passwd')",
    "SELECT edit('x', 'vi')",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) DELETE FROM {t0}",
    "EXPLAIN DELETE FROM {t0}",
    "SELECT 1 /* ; */ ; DROP TABLE {t0}",
    "SELECT 1 /* /* */ ; DROP TABLE {t0} */",
    "SELECT \"; DROP TABLE {t0}\" ; DROP TABLE {t0}",
    "SELECT [x;] FROM {t0}; DROP TABLE {t0}",
)
"""Once per database (SQLite): files, pragmas, extensions, transactions, comment tricks."""

SQLITE_READS = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION SELECT x + 1 FROM c) SELECT MAX(x) FROM c",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    "SELECT x FROM c ORDER BY x DESC",
    "WITH RECURSIVE c(s) AS (SELECT 'ab' UNION ALL SELECT s || s FROM c) SELECT length(s) FROM c",
    "SELECT randomblob(1000000000)",
    "SELECT zeroblob(2000000000)",
    "SELECT length(randomblob(500000000))",
    "SELECT hex(randomblob(600000))",
    "SELECT printf('%.*c', 2000000000, 'x')",
    "SELECT printf('%*d', 2000000000, 1)",
    "SELECT format('%.*c', 2000000000, 'x')",
    "SELECT replace(hex(zeroblob(400000)), '0', 'abcd')",
    "SELECT group_concat(hex(randomblob(1000))) FROM {big} a, {big} b",
    "SELECT " + " + ".join(["1"] * 5000),
    "SELECT " + "(" * 3000 + "1" + ")" * 3000,
    "SELECT 1 " + "UNION ALL SELECT 1 " * 600,
    "SELECT '" + "x" * 200_000 + "'",
    "SELECT 1 /* unterminated",
    "SELECT 1;;;",
)
"""Once per database (SQLite): legal but abusive reads."""

BIG_TABLE_READS = (
    "SELECT * FROM {big} a, {big} b, {big} c",
    "SELECT * FROM {big} a, {big} b, {big} c ORDER BY random()",
    "SELECT COUNT(*) FROM {big} a, {big} b, {big} c, {big} d",
)
"""For the largest table of each database: cross-join bombs."""

POSTGRES_WRITES = (
    "COPY {t0} TO '/tmp/agentgym-evil.csv'",
    "COPY {t0} FROM PROGRAM 'id'",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_ls_dir('.')",
    "SELECT lo_import('/etc/passwd')",
    "CREATE EXTENSION IF NOT EXISTS dblink",
    "SET ROLE postgres",
    "SET SESSION AUTHORIZATION postgres",
    "SET default_transaction_read_only = off",
    "RESET ALL",
    "DO $$ BEGIN DELETE FROM {t0}; END $$",
    "WITH d AS (DELETE FROM {t0} RETURNING *) SELECT * FROM d",
    "SELECT * FROM {t0} FOR UPDATE",
    "LOCK TABLE {t0}",
    "TRUNCATE {t0}",
    "GRANT ALL ON {t0} TO PUBLIC",
    "CREATE FUNCTION evil() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql",
    "PREPARE p AS DELETE FROM {t0}",
    "CALL evil()",
    "VACUUM {t0}",
    "ANALYZE {t0}",
    "ALTER SYSTEM SET fsync = off",
    "SELECT set_config('transaction_read_only', 'off', false), * FROM {t0}",
    "SELECT $x$; DROP TABLE {t0}; $x$; DROP TABLE {t0}",
    "SELECT 1 /* /* */ */ ; DROP TABLE {t0}",
    "SELECT E'\\'; DROP TABLE {t0}; --'; DROP TABLE {t0}",
)
"""Once per schema (PostgreSQL): server files, roles, settings, locks, procedural code."""

POSTGRES_READS = (
    "SELECT pg_sleep(10)",
    "SELECT COUNT(*) FROM generate_series(1, 1000000000000)",
    "SELECT * FROM generate_series(1, 1000000000000)",
    "SELECT repeat('x', 5000000)",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
    "SELECT set_config('statement_timeout', '0', false)",
    "SELECT * FROM {big} a, {big} b, {big} c",
    "SELECT COUNT(*) FROM {big} a, {big} b, {big} c, {big} d",
    "SELECT pg_terminate_backend(pg_backend_pid())",
    "SELECT 1",
)
"""Once per schema (PostgreSQL): legal but abusive reads (the last checks recovery)."""


def per_table(tables: dict[str, list[str]]) -> Iterator[str]:
    """Every write template over every table (``{c}``: the table's second column, or first)."""
    for table, columns in tables.items():
        column = columns[1] if len(columns) > 1 else columns[0]
        for template in WRITE_TEMPLATES:
            yield template.format(t=table, c=column)


def fill(templates: tuple[str, ...], **names: str) -> list[str]:
    """Fill the ``{t0}``, ``{big}``, ``{tmp}`` and ``{other}`` holes of ``templates``."""
    return [t.format(**names) for t in templates]


def table_columns(db_id: str) -> dict[str, list[str]]:
    """Tables of a bundled database and their column names."""
    with SqliteExecutor(database_path(db_id)) as executor:
        return {
            table: [row[1] for row in executor.execute(f"PRAGMA table_info({table})").rows]
            for table in executor.table_names()
        }


def biggest_table(db_id: str) -> str:
    """The table with the most rows."""
    with SqliteExecutor(database_path(db_id)) as executor:
        counts = {t: executor.execute(f"SELECT COUNT(*) FROM {t}").scalar()
                  for t in executor.table_names()}
    return max(counts, key=lambda t: counts[t])


def sqlite_cases(db_id: str, tmp: Path) -> list[tuple[str, str]]:
    """``(kind, sql)`` pairs for one SQLite database; abusive reads only for ``store``."""
    tables = table_columns(db_id)
    first = next(iter(tables))
    other = database_path("hr" if db_id != "hr" else "store")
    names = {"t0": first, "big": biggest_table(db_id), "tmp": str(tmp), "other": str(other)}
    cases = [("write", sql) for sql in per_table(tables)]
    cases += [("write", sql) for sql in fill(SQLITE_WRITES, **names)]
    cases += [("read", sql) for sql in fill(BIG_TABLE_READS, **names)]
    if db_id == "store":
        cases += [("read", sql) for sql in fill(SQLITE_READS, **names)]
    return cases


def postgres_cases(db_id: str) -> list[tuple[str, str]]:
    """``(kind, sql)`` pairs for one PostgreSQL schema; abusive reads only for ``store``."""
    tables = table_columns(db_id)
    names = {"t0": next(iter(tables)), "big": biggest_table(db_id)}
    cases = [("write", sql) for sql in per_table(tables)]
    cases += [("write", sql) for sql in fill(POSTGRES_WRITES, **names)]
    if db_id == "store":
        cases += [("read", sql) for sql in fill(POSTGRES_READS, **names)]
    return cases


def fire(executor: SQLExecutor, cases: list[tuple[str, str]], limit_s: float) -> Iterator[str]:
    """Run every case and yield its outcome; fail on a write that succeeds or a slow one."""
    for kind, sql in cases:
        started = time.monotonic()
        try:
            result = executor.execute(sql)
        except SQLError as e:
            outcome = type(e).__name__
            assert str(e), f"empty error message for {sql[:80]!r}"
        else:
            outcome = "truncated" if result.truncated else "result"
            assert kind == "read", f"write was not refused: {sql[:120]!r}"
            assert len(result.rows) <= executor.limits.max_rows  # type: ignore[attr-defined]
        elapsed = time.monotonic() - started
        assert elapsed < limit_s, f"{sql[:80]!r} took {elapsed:.2f} s ({outcome})"
        yield outcome


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_enough_hostile_statements(tmp_path: Path) -> None:
    total = sum(len(sqlite_cases(db, tmp_path)) for db in DATABASES)
    assert total >= 200
    tables = sum(len(table_columns(db)) for db in DATABASES)
    assert tables >= 8 * 4


@pytest.mark.parametrize("db_id", DATABASES)
def test_sqlite_hostile(db_id: str, tmp_path: Path) -> None:
    path = database_path(db_id)
    before = sha256(path)
    cases = sqlite_cases(db_id, tmp_path)
    with SqliteExecutor(path, ExecutionLimits(timeout_s=TIMEOUT_S)) as executor:
        outcomes = Counter(fire(executor, cases, TIMEOUT_S + MARGIN_S))
        assert executor.execute("SELECT 1").rows == ((1,),)
    assert sha256(path) == before
    assert list(tmp_path.iterdir()) == []  # no ATTACH or VACUUM INTO created a file
    assert outcomes["SQLForbiddenError"] + outcomes["SQLMultipleStatementsError"] > len(cases) / 2
    if db_id == "store":
        assert outcomes["SQLTimeoutError"] >= 3
        assert outcomes["SQLResultTooLargeError"] >= 3
        assert outcomes["truncated"] >= 2


@pytest.mark.postgres
def test_postgres_hostile(pg_loaded, ro_conninfo: str) -> None:  # noqa: ANN001
    import psycopg

    from agentgym.envs.sql.pgload import table_checksums

    timeout = 0.5
    with psycopg.connect(pg_loaded.conninfo(), autocommit=True) as admin:
        before = {db: table_checksums(admin, db) for db in DATABASES}
        outcomes: Counter[str] = Counter()
        for db_id in DATABASES:
            limits = ExecutionLimits(timeout_s=timeout)
            with PostgresExecutor(ro_conninfo, db_id, limits) as executor:
                outcomes.update(fire(executor, postgres_cases(db_id), timeout + 1.0))
                assert executor.execute("SELECT 1").rows == ((1,),)
        after = {db: table_checksums(admin, db) for db in DATABASES}
        roles = admin.execute(
            "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = %s",
            ("agentgym_ro",),
        ).fetchone()
    assert after == before
    assert roles == (False, False, False)
    assert not Path("/tmp/agentgym-evil.csv").exists()
    assert outcomes["SQLTimeoutError"] >= 2
    assert outcomes["SQLForbiddenError"] > 100
