"""The bundled databases and tasks: shape, splits, and every gold query non-trivial."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from agentgym.envs.sql import SqliteExecutor, database_path
from agentgym.envs.sql.base import ExecutionLimits
from agentgym.envs.sql.data import build
from agentgym.envs.sql.env import DEFAULT_MAX_STEPS, GOLD_TIMEOUT_S
from agentgym.envs.sql.tasks import DB_DIR, TASKS_FILE, database_ids, load_task_set, read_tasks

TASKS = read_tasks()
ID = re.compile(r"^sql-([a-z_]+)-(\d{3})$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def test_task_records() -> None:
    assert len(TASKS) >= 400
    keys = {"task_id", "db_id", "question", "gold_sql", "difficulty", "split", "single_value"}
    for task in TASKS:
        assert keys <= set(task), task["task_id"]
        match = ID.match(task["task_id"])
        assert match and match.group(1) == task["db_id"]
        assert task["difficulty"] in ("easy", "medium", "hard")
        assert task["split"] in ("train", "test")
        assert set(task.get("engines", ["sqlite", "postgres"])) <= {"sqlite", "postgres"}
        assert task["question"].strip() and task["gold_sql"].strip()
    assert len({t["task_id"] for t in TASKS}) == len(TASKS)


def test_splits_are_by_database() -> None:
    splits: dict[str, set[str]] = {}
    for task in TASKS:
        splits.setdefault(task["db_id"], set()).add(task["split"])
    assert all(len(s) == 1 for s in splits.values())
    test_dbs = {db for db, s in splits.items() if s == {"test"}}
    assert 2 <= len(test_dbs) <= 3 and test_dbs == set(build.TEST_DBS)
    assert len(splits) >= 8
    load_task_set().check()  # no question text in both splits


def test_difficulty_mix() -> None:
    per_db = Counter((t["db_id"], t["difficulty"]) for t in TASKS)
    for db in database_ids():
        assert all(per_db[db, level] > 0 for level in ("easy", "medium", "hard"))
    scalar_easy = sum(1 for t in TASKS if t["difficulty"] == "easy" and t["single_value"])
    assert 0.18 <= scalar_easy / len(TASKS) <= 0.35


@pytest.mark.parametrize("db_id", database_ids())
def test_database_shape(db_id: str) -> None:
    path = database_path(db_id)
    assert path.stat().st_size < build.MAX_DB_BYTES
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]
        assert 4 <= len(tables) <= 10
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        has_fk = has_null = has_date = False
        for table in tables:
            info = conn.execute(f"PRAGMA table_info({table})").fetchall()
            assert any(col[5] for col in info), f"{table} has no primary key"
            has_fk |= bool(conn.execute(f"PRAGMA foreign_key_list({table})").fetchall())
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] > 0
            for col in info:
                name = col[1]
                if conn.execute(f"SELECT 1 FROM {table} WHERE {name} IS NULL LIMIT 1").fetchone():
                    has_null = True
                if name.endswith(("_date", "_on")):
                    values = [r[0] for r in conn.execute(
                        f"SELECT {name} FROM {table} WHERE {name} IS NOT NULL")]
                    assert values and all(ISO_DATE.match(v) for v in values), (table, name)
                    has_date = True
        assert has_fk and has_null and has_date
    finally:
        conn.close()


def test_total_size() -> None:
    assert sum(p.stat().st_size for p in DB_DIR.glob("*.sqlite")) < build.MAX_TOTAL_BYTES


@pytest.mark.parametrize("db_id", database_ids())
def test_every_gold_query_is_non_trivial(db_id: str) -> None:
    # Budgeted by work, not wall time (the same verdict on a loaded machine), with room to spare:
    # every gold query fits in half the env's default budget.
    limits = ExecutionLimits(timeout_s=GOLD_TIMEOUT_S, max_steps=DEFAULT_MAX_STEPS // 2)
    with SqliteExecutor(database_path(db_id)) as executor:
        for task in (t for t in TASKS if t["db_id"] == db_id):
            result = executor.execute(task["gold_sql"], limits=limits)
            assert result.rows, task["task_id"]
            assert not result.truncated, task["task_id"]
            assert any(v is not None for row in result.rows for v in row), task["task_id"]
            assert task["single_value"] == (len(result.rows) == 1 and result.width == 1)


@pytest.mark.slow
def test_build_is_byte_deterministic(tmp_path: Path) -> None:
    summary = build.build(tmp_path)
    assert summary["tasks"] == len(TASKS)
    assert (tmp_path / "tasks.jsonl").read_bytes() == TASKS_FILE.read_bytes()
    for db in database_ids():
        assert (tmp_path / "dbs" / f"{db}.sqlite").read_bytes() == database_path(db).read_bytes()
    assert build.build(tmp_path)["changed"] == []
