"""``agentgym export harbor ENV DIR``: an env's function-writing tasks as Harbor task folders.

Works for any env whose tasks carry ``entry_point``, ``canonical_solution`` and
``hidden_tests`` (a list of ``assert`` lines, or one block of them) in their data, as the code
family's do; the prompt is the function's signature and docstring. Each task becomes::

    <task_id>/task.toml             [metadata] difficulty, category, split; timeouts; resources
    <task_id>/instruction.md        write the function in /app/solution.py
    <task_id>/environment/Dockerfile  Debian + python3, WORKDIR /app
    <task_id>/tests/test.sh         runs test_solution.py; reward.txt = 1 only if every test passes
    <task_id>/tests/test_solution.py  the hidden asserts, each in its own try
    <task_id>/solution/solve.sh     writes the reference solution

so Harbor's runner, the peers that import Harbor, and ``agentgym eval harbor:DIR`` run them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..registry import make

NEEDED = ("entry_point", "canonical_solution", "hidden_tests")
_TOML = """version = "1.0"

[metadata]
author_name = "agentgym export"
difficulty = {difficulty}
category = "code"
tags = {tags}
split = {split}
source_env = {env}

[verifier]
timeout_sec = 60.0

[agent]
timeout_sec = 600.0

[environment]
build_timeout_sec = 600.0
cpus = 1
memory_mb = 1024
storage_mb = 1024
"""
_DOCKERFILE = """FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 \\
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
"""
_INSTRUCTION = """Write the Python function below, complete, in the file `/app/solution.py`
(define `{entry}` at the top level of that file; the standard library is available).

```python
{prompt}
```
{examples}"""
_TEST_SH = """#!/bin/bash
# Reward 1 only when every hidden test passes; written last, after the solution has run.
# The solution runs inside the checker's process, so exit status 0 alone proves nothing (it
# can call os._exit(0)): the checker must also end with a line holding this run's nonce.
mkdir -p /logs/verifier
out=/logs/verifier/test-output.txt
nonce=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')
if printf '%s\\n' "$nonce" | timeout 50 python3 /tests/test_solution.py > "$out" 2>&1 \\
    && [ -n "$nonce" ] && [ "$(tail -n 1 "$out")" = "all passed $nonce" ]; then
  reward=1
else
  reward=0
fi
echo "$reward" > /logs/verifier/reward.txt
"""
_TEST_PY = """import json
import sys

NONCE = sys.stdin.readline().strip()  # read before the solution runs; test.sh checks it
OUT = sys.stdout
TESTS = json.loads({tests!r})
space = {{"__name__": "solution"}}
try:
    with open("/app/solution.py", encoding="utf-8") as f:
        exec(compile(f.read(), "/app/solution.py", "exec"), space)
except BaseException as e:  # noqa: BLE001 - any failure to load is a failed task
    print("cannot load /app/solution.py:", type(e).__name__, e)
    sys.exit(1)
failed = 0
for test in TESTS:
    try:
        exec(test, dict(space))
    except BaseException as e:  # noqa: BLE001
        failed += 1
        print("FAILED:", test[:200], type(e).__name__)
print(f"{{len(TESTS) - failed}} of {{len(TESTS)}} passed")
if failed or not TESTS:
    sys.exit(1)
print(f"\\nall passed {{NONCE}}", file=OUT, flush=True)
"""
_SOLVE = """#!/bin/bash
cat > /app/solution.py <<'AGENTGYM_SOLUTION_EOF'
{solution}
AGENTGYM_SOLUTION_EOF
"""


def _tests(value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            loaded = json.loads(value)
        except ValueError:
            loaded = [ln for ln in value.splitlines() if ln.strip()]
        value = loaded
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value) or not value:
        raise ConfigError("hidden_tests must be a non-empty list of assert lines")
    return value


def export_harbor(env_id: str, folder: Path, *, split: str = "test",
                  overwrite: bool = False) -> Path:
    """Write the ``split`` tasks of ``env_id`` as Harbor task folders under ``folder``."""
    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()) and not overwrite:
        raise ConfigError(f"{folder} exists and is not empty (pass overwrite)")
    env = make(env_id, split=split)
    try:
        task_set = getattr(env.unwrapped, "task_set", None)
        if task_set is None:
            raise ConfigError(f"{env_id} has no task set to export")
        tasks = list(task_set)
    finally:
        env.close()
    if not tasks:
        raise ConfigError(f"{env_id} has no tasks in split {split!r}")
    for task in tasks:
        missing = [k for k in NEEDED if k not in task.data]
        if missing:
            raise ConfigError(f"{env_id}: task {task.task_id} has no {', '.join(missing)}; "
                              "only function-writing tasks export to Harbor")
        _write_task(folder / re.sub(r"[^A-Za-z0-9_.-]+", "-", task.task_id), task, env_id)
    return folder


def _write_task(root: Path, task: Any, env_id: str) -> None:
    data = task.data
    if "AGENTGYM_SOLUTION_EOF" in data["canonical_solution"]:
        raise ConfigError(f"{task.task_id}: the solution contains the heredoc marker")
    visible = data.get("visible_tests") or ""
    visible = "\n".join(visible) if isinstance(visible, list) else str(visible)
    examples = f"\nExamples:\n\n```python\n{visible.strip()}\n```\n" if visible.strip() else ""
    q = json.dumps
    files = {
        "task.toml": _TOML.format(difficulty=q(str(data.get("difficulty", ""))),
                                  tags=q([str(t) for t in data.get("tags", [])]),
                                  split=q(task.split), env=q(env_id)),
        "instruction.md": _INSTRUCTION.format(entry=data["entry_point"],
                                              prompt=task.prompt.strip(), examples=examples),
        "environment/Dockerfile": _DOCKERFILE,
        "tests/test.sh": _TEST_SH,
        "tests/test_solution.py": _TEST_PY.format(tests=json.dumps(_tests(data["hidden_tests"]))),
        "solution/solve.sh": _SOLVE.format(solution=data["canonical_solution"].rstrip("\n")),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel.endswith(".sh"):
            path.chmod(0o755)


__all__ = ["export_harbor"]
