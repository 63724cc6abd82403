"""Assemble, validate and write ``tasks.jsonl`` for the code environment.

The tasks are authored as plain data in ``source_easy.py``, ``source_medium.py`` and
``source_hard.py`` (one ``TASKS`` list each).  Every entry holds:

``entry_point``
    the function name the agent must implement;
``tags``
    a non-empty list of topic tags;
``doc``
    the docstring text (dedented here), with one to three ``>>>`` examples;
``src``
    the reference implementation *without* its docstring (dedented here);
``visible``
    two or three test expressions the agent may see;
``hidden``
    five to ten test expressions used for scoring.

Test expressions are written without the leading ``assert``; it is added when the record
is built.  Ids are assigned in file order (easy, then medium, then hard) as ``code-0001``
onwards, and within each difficulty every fourth task goes to the ``test`` split, so the
split is stratified and deterministic.  Appending new tasks to the end of ``source_hard.py``
keeps every existing id; inserting elsewhere renumbers the tasks after it.

Validation (run on every build) checks that each reference solution passes all of its
tests and docstring examples in a fresh namespace and within the time budget, that a stub
returning ``None`` fails at least one hidden test, that no hidden test passes a degenerate
answer (a constant, the identity, a same-length filler: ``envs/code/probes.py``), that the
env's scorer can turn every test into entry-point calls and a check (``envs/code/cases.py``;
builds need ``agentgym`` importable), that the prompt's ``def`` line names the entry point,
that solutions import only from the standard-library allow-list and call no I/O builtins, and
that ids and entry points are unique.

Usage::

    python envs/code/data/build.py          # validate and (re)write tasks.jsonl
    python envs/code/data/build.py --check  # validate; fail if tasks.jsonl is stale
"""

from __future__ import annotations

import argparse
import ast
import doctest
import importlib.util
import inspect
import io
import json
import re
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

DATA_DIR = Path(__file__).resolve().parent
TASKS_PATH = DATA_DIR / "tasks.jsonl"
SOURCES: tuple[tuple[str, str], ...] = (
    ("easy", "source_easy.py"),
    ("medium", "source_medium.py"),
    ("hard", "source_hard.py"),
)
TEST_EVERY = 4
ALLOWED_IMPORTS = frozenset(
    {"bisect", "collections", "datetime", "functools", "heapq", "itertools", "math", "re", "string"}
)
FORBIDDEN_NAMES = frozenset(
    {"open", "print", "input", "eval", "exec", "compile", "__import__", "globals", "breakpoint"}
)
RECORD_KEYS = frozenset(
    {
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
)
SOURCE_KEYS = frozenset({"entry_point", "tags", "doc", "src", "visible", "hidden"})
TIME_LIMIT_S = 0.05  # CPU seconds of the slowest test (thread time: load does not change it)
VISIBLE_RANGE = (2, 3)
HIDDEN_RANGE = (5, 10)
DOC_EXAMPLE_RANGE = (1, 3)


class TaskSourceError(ValueError):
    """Raised when a source entry is malformed and cannot be turned into a record."""


def _load_module(filename: str) -> ModuleType:
    """Import one of the sibling source modules by path (works with or without a package)."""
    path = DATA_DIR / filename
    spec = importlib.util.spec_from_file_location(f"_code_tasks_{path.stem}", path)
    if spec is None or spec.loader is None:  # pragma: no cover - defensive
        raise TaskSourceError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _indent_doc(doc: str) -> str:
    """Render docstring text as the indented body of a function docstring."""
    lines = doc.splitlines()
    rendered = [lines[0]] + [("    " + line) if line.strip() else "" for line in lines[1:]]
    return '    """' + "\n".join(rendered) + '\n    """\n'


def make_record(raw: dict[str, Any], difficulty: str, task_id: str, split: str) -> dict[str, Any]:
    """Turn one authored source entry into a ``tasks.jsonl`` record."""
    missing = SOURCE_KEYS - raw.keys()
    extra = raw.keys() - SOURCE_KEYS
    if missing or extra:
        raise TaskSourceError(f"{task_id}: missing keys {sorted(missing)}, extra {sorted(extra)}")
    src = textwrap.dedent(raw["src"]).strip("\n")
    def_line, _, body = src.partition("\n")
    doc = inspect.cleandoc(raw["doc"])
    if '"""' in doc or "\\" in doc:
        raise TaskSourceError(f"{task_id}: docstring must not contain triple quotes or '\\'")
    prompt = def_line + "\n" + _indent_doc(doc)
    return {
        "task_id": task_id,
        "entry_point": raw["entry_point"],
        "difficulty": difficulty,
        "split": split,
        "prompt": prompt,
        "canonical_solution": prompt + body.rstrip() + "\n",
        "visible_tests": "".join(f"assert {t}\n" for t in raw["visible"]),
        "hidden_tests": [f"assert {t}" for t in raw["hidden"]],
        "tags": list(raw["tags"]),
    }


def build_records() -> list[dict[str, Any]]:
    """Build every record from the source modules, in id order (no validation)."""
    records: list[dict[str, Any]] = []
    for difficulty, filename in SOURCES:
        for position, raw in enumerate(_load_module(filename).TASKS):
            task_id = f"code-{len(records) + 1:04d}"
            split = "test" if position % TEST_EVERY == TEST_EVERY - 1 else "train"
            records.append(make_record(raw, difficulty, task_id, split))
    return records


def render(records: list[dict[str, Any]]) -> str:
    """Serialise records as JSON Lines with sorted keys (byte-for-byte deterministic)."""
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=True) + "\n" for r in records)


def _run_tests(source: str, tests: list[str], name: str) -> tuple[list[str], float]:
    """Exec ``source`` in a fresh namespace and run each test; return failures and the largest
    CPU time of one test (this thread's CPU time, so a loaded machine does not change it)."""
    namespace: dict[str, Any] = {"__name__": f"task_{name}"}
    exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102 - trusted data
    failures: list[str] = []
    slowest = 0.0
    for test in tests:
        start = time.thread_time()
        try:
            exec(compile(test, f"<{name} test>", "exec"), namespace)  # noqa: S102
        except Exception as exc:  # noqa: BLE001 - any failure counts
            failures.append(f"{test!r}: {type(exc).__name__}: {exc}")
        slowest = max(slowest, time.thread_time() - start)
    return failures, slowest


def _check_doctests(record: dict[str, Any]) -> list[str]:
    """Run the docstring examples of the reference solution; return error messages."""
    namespace: dict[str, Any] = {"__name__": f"task_{record['task_id']}"}
    exec(compile(record["canonical_solution"], "<doctest>", "exec"), namespace)  # noqa: S102
    func = namespace[record["entry_point"]]
    parser = doctest.DocTestParser()
    test = parser.get_doctest(func.__doc__ or "", namespace, record["entry_point"], None, 0)
    n_examples = len(test.examples)
    errors = []
    low, high = DOC_EXAMPLE_RANGE
    if not low <= n_examples <= high:
        errors.append(f"docstring has {n_examples} examples, expected {low}-{high}")
    out = io.StringIO()
    result = doctest.DocTestRunner(verbose=False).run(test, out=out.write)
    if result.failed:
        errors.append(f"docstring example failed:\n{out.getvalue()}")
    return errors


def _check_source_safety(record: dict[str, Any]) -> list[str]:
    """Check the solution's structure, imports and builtins usage."""
    errors = []
    tree = ast.parse(record["canonical_solution"])
    top = tree.body
    if len(top) != 1 or not isinstance(top[0], ast.FunctionDef):
        errors.append("canonical_solution must be exactly one top-level function")
    elif top[0].name != record["entry_point"]:
        errors.append(f"function is named {top[0].name!r}, not the entry point")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots = {(node.module or "").split(".")[0]}
        else:
            roots = set()
        if roots - ALLOWED_IMPORTS:
            errors.append(f"disallowed import {sorted(roots - ALLOWED_IMPORTS)}")
        if isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            errors.append(f"uses forbidden builtin {node.id!r}")
    return errors


def _check_tests_shape(record: dict[str, Any]) -> list[str]:
    """Check test counts, assert syntax and that hidden tests do not repeat visible ones."""
    errors = []
    visible = record["visible_tests"].splitlines()
    hidden = record["hidden_tests"]
    if not VISIBLE_RANGE[0] <= len(visible) <= VISIBLE_RANGE[1]:
        errors.append(f"{len(visible)} visible tests, expected {VISIBLE_RANGE}")
    if not HIDDEN_RANGE[0] <= len(hidden) <= HIDDEN_RANGE[1]:
        errors.append(f"{len(hidden)} hidden tests, expected {HIDDEN_RANGE}")
    for test in visible + hidden:
        tree = ast.parse(test)
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
            errors.append(f"not a single assert statement: {test!r}")
        elif record["entry_point"] not in test:
            errors.append(f"test does not call the entry point: {test!r}")
    if len(set(hidden)) != len(hidden):
        errors.append("duplicate hidden tests")
    if len(set(visible)) != len(visible):
        errors.append("duplicate visible tests")
    overlap = set(visible) & set(hidden)
    if overlap:
        errors.append(f"visible tests repeated in hidden tests: {sorted(overlap)}")
    return errors


def _check_scorable(record: dict[str, Any]) -> list[str]:
    """Check that the scorer can turn every test into calls and a host-side check.

    The env never runs the ``assert`` lines in the solution's process: each becomes the inputs
    of its entry-point calls and a check over their results (``envs/code/cases.py``); a test
    that conversion does not support would be unscorable.
    """
    from agentgym.envs.code.cases import CaseError, case_from_assert

    errors = []
    for test in record["visible_tests"].splitlines() + record["hidden_tests"]:
        try:
            case_from_assert(test, record["entry_point"])
        except CaseError as exc:
            errors.append(f"the scorer cannot check {test!r}: {exc}")
    return errors


def validate_record(record: dict[str, Any]) -> list[str]:
    """Return every problem found with one record (an empty list means it is valid)."""
    errors: list[str] = []
    if set(record) != RECORD_KEYS:
        errors.append(f"record keys {sorted(record)}")
    entry = record["entry_point"]
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", entry):
        errors.append(f"bad entry point {entry!r}")
    if not re.match(rf"def {re.escape(entry)}\(.*\) -> .+:\n", record["prompt"]):
        errors.append("prompt does not start with a typed def line for the entry point")
    if not record["tags"] or not all(re.fullmatch(r"[a-z]+(-[a-z]+)*", t) for t in record["tags"]):
        errors.append(f"bad tags {record['tags']!r}")
    try:
        ast.parse(record["prompt"] + "    ...\n")
        ast.parse(record["canonical_solution"])
    except SyntaxError as exc:
        return errors + [f"syntax error: {exc}"]
    errors += _check_source_safety(record)
    errors += _check_tests_shape(record)
    errors += _check_scorable(record)
    tests = record["visible_tests"].splitlines() + record["hidden_tests"]
    failures, slowest = _run_tests(record["canonical_solution"], tests, record["task_id"])
    errors += [f"reference fails {f}" for f in failures]
    if slowest > TIME_LIMIT_S:
        errors.append(f"slowest test took {slowest * 1000:.1f} ms of CPU "
                      f"(limit {TIME_LIMIT_S * 1000} ms)")
    errors += _check_doctests(record)
    stub = f"def {entry}(*a, **k):\n    return None\n"
    stub_failures, _ = _run_tests(stub, record["hidden_tests"], record["task_id"] + "-stub")
    if not stub_failures:
        errors.append("a stub returning None passes every hidden test")
    errors += _check_not_weak(record)
    return errors


def _check_not_weak(record: dict[str, Any]) -> list[str]:
    """Check that no hidden test passes a degenerate answer (a constant, each call's first
    argument, a filler as long as the reference's value): see ``envs/code/probes.py``."""
    from agentgym.envs.code.probes import weak_tests

    try:
        weak = weak_tests(record["canonical_solution"], record["entry_point"],
                          record["hidden_tests"])
    except Exception as exc:  # noqa: BLE001 - reported, never a pass
        return [f"the degenerate-answer probe failed: {type(exc).__name__}: {exc}"]
    return [f"weak hidden test {test!r}: the {probe} answer passes it" for test, probe in weak]


def validate(records: list[dict[str, Any]]) -> list[str]:
    """Validate all records and the dataset as a whole; return ``id: problem`` strings."""
    errors = [f"{r['task_id']}: {e}" for r in records for e in validate_record(r)]
    for field in ("task_id", "entry_point"):
        dupes = [k for k, n in Counter(r[field] for r in records).items() if n > 1]
        if dupes:
            errors.append(f"duplicate {field}s: {dupes}")
    for difficulty, _ in SOURCES:
        splits = {r["split"] for r in records if r["difficulty"] == difficulty}
        if splits != {"train", "test"}:
            errors.append(f"{difficulty}: splits present {sorted(splits)}")
    return errors


def summary(records: list[dict[str, Any]]) -> str:
    """Describe the dataset as counts per difficulty and split."""
    counts = Counter((r["difficulty"], r["split"]) for r in records)
    parts = [f"{d}: {counts[(d, 'train')]} train / {counts[(d, 'test')]} test" for d, _ in SOURCES]
    n_test = sum(counts[(d, "test")] for d, _ in SOURCES)
    return f"{len(records)} tasks ({n_test} test); " + "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns a process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="do not write; fail if tasks.jsonl is out of date"
    )
    args = parser.parse_args(argv)
    records = build_records()
    errors = validate(records)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        print(f"{len(errors)} problem(s); tasks.jsonl not written", file=sys.stderr)
        return 1
    text = render(records)
    current = TASKS_PATH.read_text(encoding="utf-8") if TASKS_PATH.exists() else None
    if args.check:
        if current != text:
            print(f"{TASKS_PATH} is out of date; run build.py", file=sys.stderr)
            return 1
        print(f"{TASKS_PATH.name} up to date: {summary(records)}")
        return 0
    if current != text:
        TASKS_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {TASKS_PATH.name}: {summary(records)}")
    else:
        print(f"{TASKS_PATH.name} unchanged: {summary(records)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
