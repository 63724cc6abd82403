"""Checks on the bundled code-task dataset ``envs/code/data/tasks.jsonl``.

The file is read directly (no package import needed); each task's reference solution is
exec'd in-process in a fresh namespace and must pass all of its tests, while a stub that
returns ``None`` must fail at least one hidden test.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

DATA_DIR = Path(__file__).resolve().parents[3] / "envs" / "code" / "data"
TASKS_PATH = DATA_DIR / "tasks.jsonl"
KEYS = {
    "task_id",
    "entry_point",
    "difficulty",
    "split",
    "prompt",
    "canonical_solution",
    "visible_tests",
    "hidden_tests",
    "tags",
}
DIFFICULTIES = ("easy", "medium", "hard")
SPLITS = ("train", "test")


def _load_tasks() -> list[dict[str, Any]]:
    """Read every JSON line of ``tasks.jsonl``."""
    with TASKS_PATH.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


TASKS = _load_tasks()


def _run(source: str, tests: list[str]) -> list[str]:
    """Exec ``source`` in a fresh namespace, run each test, return the failing ones."""
    namespace: dict[str, Any] = {"__name__": "task_under_test"}
    exec(compile(source, "<solution>", "exec"), namespace)  # noqa: S102 - bundled data
    failures = []
    for test in tests:
        try:
            exec(compile(test, "<test>", "exec"), namespace)  # noqa: S102
        except Exception:  # noqa: BLE001 - any exception is a failed test
            failures.append(test)
    return failures


def _visible(task: dict[str, Any]) -> list[str]:
    """Split a task's visible tests into individual assert lines."""
    return task["visible_tests"].splitlines()


by_id = pytest.mark.parametrize("task", TASKS, ids=[t["task_id"] for t in TASKS])


def test_dataset_size_and_mix() -> None:
    """There are enough tasks, with every difficulty present in both splits."""
    assert len(TASKS) >= 150
    counts = Counter((t["difficulty"], t["split"]) for t in TASKS)
    for difficulty in DIFFICULTIES:
        for split in SPLITS:
            assert counts[(difficulty, split)] > 0, (difficulty, split)
    test_fraction = sum(t["split"] == "test" for t in TASKS) / len(TASKS)
    assert 0.2 <= test_fraction <= 0.3


def test_ids_and_entry_points_unique() -> None:
    """Task ids and entry points are unique across the whole file."""
    ids = [t["task_id"] for t in TASKS]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"code-\d{4}", i) for i in ids)
    entry_points = [t["entry_point"] for t in TASKS]
    assert len(set(entry_points)) == len(entry_points)


def test_splits_disjoint() -> None:
    """No task (by id, prompt or solution) appears in both train and test."""
    for field in ("task_id", "prompt", "canonical_solution"):
        train = {t[field] for t in TASKS if t["split"] == "train"}
        test = {t[field] for t in TASKS if t["split"] == "test"}
        assert not train & test, field


@by_id
def test_schema(task: dict[str, Any]) -> None:
    """Each record has exactly the expected fields with the expected shapes."""
    assert set(task) == KEYS
    assert task["difficulty"] in DIFFICULTIES
    assert task["split"] in SPLITS
    assert isinstance(task["tags"], list) and task["tags"]
    assert all(isinstance(tag, str) and tag for tag in task["tags"])
    entry = task["entry_point"]
    assert task["prompt"].startswith(f"def {entry}(")
    assert '"""' in task["prompt"] and ">>> " + entry in task["prompt"]
    assert task["canonical_solution"].startswith(task["prompt"])
    tree = ast.parse(task["canonical_solution"])
    assert [type(node) for node in tree.body] == [ast.FunctionDef]
    assert tree.body[0].name == entry
    visible = _visible(task)
    assert 2 <= len(visible) <= 3
    assert isinstance(task["hidden_tests"], list)
    assert 5 <= len(task["hidden_tests"]) <= 10
    for test in visible + task["hidden_tests"]:
        assert isinstance(test, str) and test.startswith("assert ")
        assert isinstance(ast.parse(test).body[0], ast.Assert)


@by_id
def test_hidden_tests_do_not_repeat_visible(task: dict[str, Any]) -> None:
    """Hidden tests are distinct and never contain a visible test verbatim."""
    hidden = task["hidden_tests"]
    assert len(set(hidden)) == len(hidden)
    for test in _visible(task):
        assert test not in hidden


@by_id
def test_canonical_solution_passes(task: dict[str, Any]) -> None:
    """The reference solution passes every visible and hidden test."""
    assert _run(task["canonical_solution"], _visible(task) + task["hidden_tests"]) == []


@by_id
def test_none_stub_fails(task: dict[str, Any]) -> None:
    """A stub returning None fails at least one hidden test."""
    stub = f"def {task['entry_point']}(*a, **k):\n    return None\n"
    assert _run(stub, task["hidden_tests"])


def test_file_matches_sources() -> None:
    """``tasks.jsonl`` is exactly what ``build.py`` generates from the source modules."""
    spec = importlib.util.spec_from_file_location("_code_data_build", DATA_DIR / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    records = build.build_records()
    assert build.render(records) == TASKS_PATH.read_text(encoding="utf-8")
    assert build.validate(records) == []
