"""Where the bundled SQL databases and tasks live, and how to load them."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from agentgym.tasks import TaskSet

from .errors import SQLDatabaseNotFound

__all__ = ["DB_DIR", "TASKS_FILE", "database_ids", "database_path", "load_task_set", "read_tasks"]

DATA_DIR = Path(__file__).resolve().parent / "data"
DB_DIR = DATA_DIR / "dbs"
"""Folder of the bundled ``<db_id>.sqlite`` files."""
TASKS_FILE = DATA_DIR / "tasks.jsonl"
"""The bundled tasks, one JSON object per line."""

_DB_ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def database_ids(db_dir: Path = DB_DIR) -> list[str]:
    """Ids of the databases in ``db_dir``, sorted."""
    return sorted(p.stem for p in db_dir.glob("*.sqlite"))


def database_path(db_id: str, db_dir: Path = DB_DIR) -> Path:
    """Path of database ``db_id``; raises :class:`SQLDatabaseNotFound` if there is none."""
    if not _DB_ID.match(db_id):
        raise SQLDatabaseNotFound(f"invalid database id {db_id!r}")
    path = db_dir / f"{db_id}.sqlite"
    if not path.is_file():
        known = ", ".join(database_ids(db_dir)) or "none"
        raise SQLDatabaseNotFound(f"no database {db_id!r}; known: {known}")
    return path


def read_tasks(path: Path = TASKS_FILE) -> list[dict[str, Any]]:
    """The raw task records of a tasks file, in file order."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@cache
def load_task_set(path: Path = TASKS_FILE) -> TaskSet:
    """The tasks as an :class:`agentgym.TaskSet`: the question is the prompt; the database id,
    gold SQL, difficulty and the rest go to ``Task.data``."""
    return TaskSet.from_records(read_tasks(path), name="sql", prompt_key="question")
