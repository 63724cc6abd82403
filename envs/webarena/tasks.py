"""The bundled task files (WebArena's JSON schema) and how they are generated and loaded.

``data/test.raw.json`` (165 tasks, WebArena-Lite's distribution over sites and evaluation types)
and ``data/train.raw.json`` (660 tasks from the same templates, other instantiations) are
written by ``python -m agentgym.envs.webarena.tasks`` from the sites' template databases; a test
regenerates them and checks the files agree, so every gold answer comes from the site data.
"""

from __future__ import annotations

import json
import random
import sys
from functools import cache
from pathlib import Path
from typing import Any

from agentgym.tasks import Task, TaskSet

from .sites.state import SITES, open_template
from .taskgen import Template
from .templates_forum import FORUM_TEMPLATES, MULTI_TEMPLATES
from .templates_gitlab import GITLAB_TEMPLATES
from .templates_map import MAP_TEMPLATES
from .templates_shop import SHOP_TEMPLATES
from .twin_learn import learn_tasks
from .twin_official import lite_tasks

DATA = Path(__file__).resolve().parent / "data"
TEMPLATES: list[Template] = [*SHOP_TEMPLATES, *GITLAB_TEMPLATES, *MAP_TEMPLATES,
                             *FORUM_TEMPLATES, *MULTI_TEMPLATES]
"""Every template, in the order of the test file."""
TRAIN_ID_BASE = 1000
"""Train task ids start here (test ids are 0..164)."""


def generate() -> dict[str, list[dict[str, Any]]]:
    """Both splits, freshly computed from the template databases."""
    dbs = {site: open_template(site) for site in SITES}
    try:
        out: dict[str, list[dict[str, Any]]] = {"test": [], "train": []}
        for t in TEMPLATES:
            seen: set[str] = set()
            pool = []
            for cand in t.generate(t, dbs):
                key = cand["intent"].lower()
                if key not in seen:
                    seen.add(key)
                    pool.append(cand)
            random.Random(t.id).shuffle(pool)
            need = t.test + t.n_train
            if len(pool) < need:
                raise ValueError(f"template {t.id} has {len(pool)} instantiations, needs {need}")
            out["test"].extend(pool[: t.test])
            out["train"].extend(pool[t.test : need])
    finally:
        for conn in dbs.values():
            conn.close()
    for i, rec in enumerate(out["test"]):
        rec["task_id"] = i
    for i, rec in enumerate(out["train"]):
        rec["task_id"] = TRAIN_ID_BASE + i
    return out


def write(folder: Path = DATA) -> None:
    """Regenerate ``test.raw.json`` and ``train.raw.json`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for split, records in generate().items():
        (folder / f"{split}.raw.json").write_text(json.dumps(records, indent=1) + "\n")


def read_raw(path: str | Path) -> list[dict[str, Any]]:
    """Task records of a WebArena-format file (a JSON list)."""
    records = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(records, list):
        raise ValueError(f"{path}: expected a JSON list of tasks")
    return records


def to_tasks(records: list[dict[str, Any]], split: str) -> list[Task]:
    """agentgym tasks from WebArena records (the whole record is kept as ``data["config"]``)."""
    return [Task(str(r["task_id"]), split, str(r["intent"]), {"config": r}) for r in records]


@cache
def load_tasks() -> TaskSet:
    """The bundled splits as one task set (``train`` and ``test``)."""
    tasks = [*to_tasks(read_raw(DATA / "test.raw.json"), "test"),
             *to_tasks(read_raw(DATA / "train.raw.json"), "train")]
    tasks += learn_tasks(TEMPLATES, {t.prompt.lower() for t in tasks})
    tasks += lite_tasks()  # the official templates on the bundled data, when installed
    return TaskSet(tasks, name="webarena-lite")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA)
