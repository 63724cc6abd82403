"""Build the bundled SQL databases and tasks, deterministically.

Run ``python -m agentgym.envs.sql.data.build`` (or this file as a script). Each domain module
in :mod:`.domains` creates one SQLite database from a seeded ``random.Random``; its templates
then become tasks. The output is byte-identical on every run with the same SQLite version:
fixed seeds, no clock, ``VACUUM`` at the end, and files replaced only when their bytes change.

Outputs, next to this file: ``dbs/<db_id>.sqlite`` and ``tasks.jsonl``. Tasks of the
databases in :data:`TEST_DBS` are all ``test``; every other database is ``train`` (a database
never appears in both, as in Spider). The build fails loudly if any check does not hold.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path
from types import ModuleType

if __package__ in (None, ""):  # run as a script: hand over to the installed module
    import importlib

    raise SystemExit(importlib.import_module("agentgym.envs.sql.data.build").main())

from .domains import DOMAINS
from .templates import BuildError, Draft, instantiate

__all__ = ["DATA_DIR", "SEED", "TEST_DBS", "build", "main"]

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent
SEED = 20241122
TEST_DBS = frozenset({"clinic", "library"})
MAX_DB_BYTES = 300_000
MAX_TOTAL_BYTES = 3_000_000
MIN_TASKS = 400


def _write_if_changed(path: Path, data: bytes) -> bool:
    """Replace ``path`` atomically with ``data`` unless it already holds exactly that."""
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as tmp:
        tmp.write(data)
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, path)
    return True


def build_database(domain: ModuleType, workdir: Path) -> tuple[bytes, list[Draft]]:
    """Create one domain's database and instantiate its templates; return file bytes and drafts."""
    path = workdir / f"{domain.DB_ID}.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.executescript(domain.SCHEMA)
        conn.execute("BEGIN")
        domain.populate(conn, random.Random(f"{SEED}-{domain.DB_ID}-data"))
        conn.execute("COMMIT")
        broken = conn.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise BuildError(f"{domain.DB_ID}: foreign keys broken: {broken[:5]}")
        rng = random.Random(f"{SEED}-{domain.DB_ID}-tasks")
        drafts = [d for tpl in domain.TEMPLATES for d in instantiate(tpl, conn, rng)]
        conn.execute("VACUUM")
    finally:
        conn.close()
    return path.read_bytes(), drafts


def _task_rows(db_id: str, drafts: list[Draft]) -> list[dict]:
    """Number the drafts of one database and attach its split."""
    split = "test" if db_id in TEST_DBS else "train"
    rows = []
    for index, draft in enumerate(drafts, start=1):
        row = {
            "task_id": f"sql-{db_id}-{index:03d}",
            "db_id": db_id,
            "question": draft.question,
            "gold_sql": draft.gold_sql,
            "difficulty": draft.difficulty,
            "split": split,
            "single_value": draft.single_value,
        }
        if tuple(draft.engines) != ("sqlite", "postgres"):
            row["engines"] = list(draft.engines)
        rows.append(row)
    return rows


def _check_totals(sizes: dict[str, int], tasks: list[dict]) -> None:
    """Whole-build checks: sizes, counts, splits, difficulty mix, unique questions."""
    for db_id, size in sizes.items():
        if size > MAX_DB_BYTES:
            raise BuildError(f"{db_id}.sqlite is {size} bytes, over {MAX_DB_BYTES}")
    if sum(sizes.values()) > MAX_TOTAL_BYTES:
        raise BuildError(f"databases total {sum(sizes.values())} bytes, over {MAX_TOTAL_BYTES}")
    if len(tasks) < MIN_TASKS:
        raise BuildError(f"only {len(tasks)} tasks, need at least {MIN_TASKS}")
    splits = {(t["db_id"], t["split"]) for t in tasks}
    if len({db for db, _ in splits}) != len(splits):
        raise BuildError("a database has tasks in both splits")
    per_db = Counter((t["db_id"], t["difficulty"]) for t in tasks)
    for db_id in sizes:
        for level in ("easy", "medium", "hard"):
            if per_db[db_id, level] == 0:
                raise BuildError(f"{db_id} has no {level} tasks")
    scalar = sum(1 for t in tasks if t["difficulty"] == "easy" and t["single_value"])
    if scalar < 0.18 * len(tasks):
        raise BuildError(f"only {scalar} single-value easy tasks, want about 20%")
    questions = Counter((t["db_id"], t["question"]) for t in tasks)
    repeated = [q for q, n in questions.items() if n > 1]
    if repeated:
        raise BuildError(f"repeated questions: {repeated[:3]}")


def build(out_dir: Path = DATA_DIR) -> dict[str, object]:
    """Build every database and ``tasks.jsonl`` under ``out_dir``; return a summary."""
    tasks: list[dict] = []
    sizes: dict[str, int] = {}
    changed: list[str] = []
    blobs: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as work:
        for domain in DOMAINS:
            data, drafts = build_database(domain, Path(work))
            blobs[domain.DB_ID] = data
            sizes[domain.DB_ID] = len(data)
            tasks.extend(_task_rows(domain.DB_ID, drafts))
            log.info("%s: %d bytes, %d tasks", domain.DB_ID, len(data), len(drafts))
    _check_totals(sizes, tasks)
    for db_id, data in blobs.items():
        if _write_if_changed(out_dir / "dbs" / f"{db_id}.sqlite", data):
            changed.append(f"dbs/{db_id}.sqlite")
    lines = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks)
    if _write_if_changed(out_dir / "tasks.jsonl", lines.encode()):
        changed.append("tasks.jsonl")
    return {
        "databases": sizes,
        "tasks": len(tasks),
        "by_difficulty": dict(Counter(t["difficulty"] for t in tasks)),
        "by_split": dict(Counter(t["split"] for t in tasks)),
        "single_value_easy": sum(
            1 for t in tasks if t["difficulty"] == "easy" and t["single_value"]
        ),
        "changed": changed,
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: build and log a one-line summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="output folder")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        summary = build(args.out)
    except BuildError as e:
        log.error("build failed: %s", e)
        return 1
    log.info(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
