"""Harbor task directories, read natively: ``task.toml``, ``instruction.md``, ``environment/``,
``tests/``, ``solution/`` and multi-step ``steps/<name>/`` folders.

The layout is Harbor's (https://harborframework.com/docs/tasks)::

    my-task/
      task.toml          # [metadata], [agent], [verifier], [environment], optional [[steps]]
      instruction.md     # what the agent is asked to do
      environment/Dockerfile
      tests/test.sh      # writes /logs/verifier/reward.txt (or reward.json)
      solution/solve.sh  # the oracle

A multi-step task lists ``[[steps]]`` (each with a ``name``) and keeps each step's
``instruction.md``, ``tests/`` and ``solution/`` under ``steps/<name>/``; the task-level ``tests/``
is shared and a step's own test files override same-named ones. ``[metadata] split`` (agentgym's
own key; Harbor ignores unknown metadata) puts a task in a split; without it a task is in
``test``.
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym import Task, TaskSet
from agentgym.errors import TaskError

STEP_VERIFIER_TIMEOUT_S = 600.0
"""A step's verifier deadline when ``[steps.verifier]`` sets none: Harbor's own default, not the
task's ``[verifier] timeout_sec`` (a step's agent timeout does fall back to the task's)."""
MAX_TASK_FILE = 4 * 1024 * 1024
"""Largest file read from a task folder (tests, solutions, environment files)."""


@dataclass(frozen=True)
class HarborStep:
    """One step (a single-step task has one): its instruction, verifier and oracle files."""

    name: str
    instruction: str
    tests: dict[str, bytes]
    """Paths relative to ``/tests`` -> content; ``test.sh`` is the entry point."""
    solution: dict[str, bytes]
    """Paths relative to ``/solution`` -> content; ``solve.sh`` is the entry point."""
    agent_timeout_s: float
    verifier_timeout_s: float
    verifier_env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HarborTask:
    """A Harbor task folder read into memory."""

    path: Path
    name: str
    steps: tuple[HarborStep, ...]
    dockerfile: str
    environment_files: dict[str, bytes]
    """Files of ``environment/`` (the Docker build context), relative to it."""
    metadata: dict[str, Any]
    cpus: float = 1.0
    memory_mb: int = 2048
    storage_mb: int = 10240
    allow_internet: bool = False
    build_timeout_s: float = 600.0
    reward_strategy: str = "mean"
    """How step rewards combine: ``mean`` (Harbor's default) or ``final``."""

    @property
    def instruction(self) -> str:
        """The first step's instruction."""
        return self.steps[0].instruction


def _read_tree(folder: Path) -> dict[str, bytes]:
    """Regular files under ``folder`` (symlinks refused), by relative POSIX path."""
    out: dict[str, bytes] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            raise TaskError(f"{path}: symbolic links are not allowed in a task folder")
        if path.is_file():
            if path.stat().st_size > MAX_TASK_FILE:
                raise TaskError(f"{path}: over {MAX_TASK_FILE} bytes")
            out[path.relative_to(folder).as_posix()] = path.read_bytes()
    return out


def _positive(table: dict[str, Any], key: str, default: float, where: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or value <= 0:
        raise TaskError(f"{where}: {key} must be a positive number, not {value!r}")
    return float(value)


def _size_mb(table: dict[str, Any], key: str, default: int, where: str) -> int:
    """``<key>_mb``, else Harbor's deprecated ``<key>`` (a size such as ``"2G"`` or ``"512M"``;
    a bare number is megabytes), else ``default``."""
    if f"{key}_mb" in table or key not in table:
        return max(1, int(_positive(table, f"{key}_mb", default, where)))
    legacy = table[key]
    if not isinstance(legacy, str):
        return max(1, int(_positive(table, key, default, where)))
    found = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([GMK])\s*", legacy, re.IGNORECASE)
    if found is None:
        raise TaskError(f"{where}: {key} must be a size such as '2G' or '512M', not {legacy!r}")
    size = float(found[1]) * {"G": 1024, "M": 1, "K": 1 / 1024}[found[2].upper()]
    return max(1, int(size))


def _table(config: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = config.get(key, {})
    if not isinstance(value, dict):
        raise TaskError(f"{where}: [{key}] must be a table")
    return value


def _env(table: dict[str, Any], where: str) -> dict[str, str]:
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(k, str) for k in env):
        raise TaskError(f"{where}: [verifier] env must be a table of strings")
    return {k: str(v) for k, v in env.items()}


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TaskError(f"{path.parent}: no {path.name}") from None
    except UnicodeDecodeError as e:
        raise TaskError(f"{path}: not UTF-8 ({e})") from None


def load_task(path: str | Path) -> HarborTask:
    """Read one task folder; :class:`~agentgym.errors.TaskError` names what is wrong."""
    root = Path(path).resolve()
    where = str(root)
    try:
        config = tomllib.loads(_text(root / "task.toml"))
    except tomllib.TOMLDecodeError as e:
        raise TaskError(f"{where}/task.toml: {e}") from None
    agent = _table(config, "agent", where)
    verifier = _table(config, "verifier", where)
    environment = _table(config, "environment", where)
    metadata = _table(config, "metadata", where)
    agent_s = _positive(agent, "timeout_sec", 600.0, where)
    verifier_s = _positive(verifier, "timeout_sec", 600.0, where)
    shared_tests = _read_tree(root / "tests")
    steps: list[HarborStep] = []
    raw_steps = config.get("steps")
    if raw_steps:
        if not isinstance(raw_steps, list) or not all(isinstance(s, dict) for s in raw_steps):
            raise TaskError(f"{where}: [[steps]] must be an array of tables")
        for i, step in enumerate(raw_steps):
            name = step.get("name")
            if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
                raise TaskError(f"{where}: step {i} has no valid name")
            folder = root / "steps" / name
            s_agent = _table(step, "agent", f"{where} step {name}")
            s_verifier = _table(step, "verifier", f"{where} step {name}")
            tests = {**shared_tests, **_read_tree(folder / "tests")}
            steps.append(HarborStep(
                name, _text(folder / "instruction.md"), tests, _read_tree(folder / "solution"),
                _positive(s_agent, "timeout_sec", agent_s, where),
                _positive(s_verifier, "timeout_sec", STEP_VERIFIER_TIMEOUT_S, where),
                {**_env(verifier, where), **_env(s_verifier, where)},
            ))
    else:
        steps.append(HarborStep("main", _text(root / "instruction.md"), shared_tests,
                                _read_tree(root / "solution"), agent_s, verifier_s,
                                _env(verifier, where)))
    for step in steps:
        if "test.sh" not in step.tests:
            raise TaskError(f"{where}: step {step.name!r} has no tests/test.sh")
    strategy = str(config.get("multi_step_reward_strategy", "mean"))
    if strategy not in ("mean", "final"):
        raise TaskError(f"{where}: multi_step_reward_strategy must be 'mean' or 'final'")
    env_files = _read_tree(root / "environment")
    dockerfile = env_files.get("Dockerfile")
    if dockerfile is None:
        raise TaskError(f"{where}: no environment/Dockerfile (docker-compose tasks are not "
                        "supported yet)")
    memory = _size_mb(environment, "memory", 2048, where)
    storage = _size_mb(environment, "storage", 10240, where)
    return HarborTask(
        path=root, name=str(config.get("task", {}).get("name", root.name)) if isinstance(
            config.get("task"), dict) else root.name,
        steps=tuple(steps), dockerfile=dockerfile.decode("utf-8", "replace"),
        environment_files=env_files, metadata=metadata,
        cpus=_positive(environment, "cpus", 1, where), memory_mb=memory,
        storage_mb=storage, allow_internet=bool(environment.get("allow_internet", False)),
        build_timeout_s=_positive(environment, "build_timeout_sec", 600.0, where),
        reward_strategy=strategy,
    )


@functools.lru_cache(maxsize=512)
def cached_task(path: str, stamp: tuple[int, int]) -> HarborTask:
    """:func:`load_task`, cached by path and the folder's :func:`_stamp`."""
    return load_task(path)


def _stamp(folder: Path) -> tuple[int, int]:
    """(newest modification time, file count) of the folder's tree: any edit changes it."""
    times = [p.lstat().st_mtime_ns for p in folder.rglob("*")]
    return max(times, default=0), len(times)


def get_task(path: str | Path) -> HarborTask:
    """The task at ``path``, read again only after a file of it changed."""
    p = Path(path).resolve()
    if not (p / "task.toml").is_file():
        raise TaskError(f"{p}: no task.toml")
    return cached_task(str(p), _stamp(p))


def discover(path: str | Path) -> list[Path]:
    """A folder with ``task.toml`` is one task; otherwise every subfolder holding one (at any
    depth, sorted)."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise TaskError(f"{root}: no such folder of Harbor tasks")
    if (root / "task.toml").is_file():
        return [root.resolve()]
    found = sorted(p.parent.resolve() for p in root.rglob("task.toml")
                   if "steps" not in p.relative_to(root).parts[:-2])
    if not found:
        raise TaskError(f"{root}: no task.toml in it or below it")
    return found


def load_taskset(path: str | Path, *, name: str = "harbor", difficulty: str | None = None) -> (
        TaskSet):
    """Every task under ``path`` as :class:`~agentgym.Task` objects (``data["path"]`` is the
    folder; the split is ``[metadata] split``, default ``test``)."""
    tasks = []
    for folder in discover(path):
        task = get_task(folder)
        level = str(task.metadata.get("difficulty", ""))
        if difficulty is not None and level != difficulty:
            continue
        tasks.append(Task(task.path.name, str(task.metadata.get("split", "test")),
                          task.instruction, {"path": str(task.path), "difficulty": level,
                                             "category": task.metadata.get("category", ""),
                                             "steps": len(task.steps)}))
    return TaskSet(tasks, name=name)


__all__ = ["HarborStep", "HarborTask", "discover", "get_task", "load_task", "load_taskset"]
