"""Tasks and task sets with named splits.

A task set is loaded from JSON or JSONL files shipped with an env family (or from a Hugging Face
dataset when the user has ``datasets``). Every task has an id and a split; :meth:`TaskSet.check`
refuses a task set whose splits share ids or task contents, a leak several peers ship.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SplitLeakError, TaskError, missing_extra


@dataclass(frozen=True)
class Task:
    """One task: an id, its split, the text shown to the agent and family-specific data."""

    task_id: str
    split: str
    prompt: str
    """What the agent is asked to do (question, intent, instruction)."""
    data: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    """Everything else from the task file: gold answers, database id, evaluator config..."""

    def fingerprint(self) -> str:
        """Hash of the task's content, used to detect the same task in two splits."""
        return hashlib.sha256(self.prompt.strip().lower().encode()).hexdigest()[:16]


class TaskSet:
    """An ordered collection of tasks with named splits."""

    def __init__(self, tasks: Iterable[Task], name: str = "") -> None:
        self.name = name
        self._tasks: list[Task] = list(tasks)
        self._by_id: dict[str, Task] = {}
        for t in self._tasks:
            if t.task_id in self._by_id:
                raise TaskError(f"task set {name!r}: duplicate task id {t.task_id!r}")
            self._by_id[t.task_id] = t

    @classmethod
    def from_records(
        cls,
        records: Iterable[dict[str, Any]],
        *,
        name: str = "",
        id_key: str = "task_id",
        prompt_key: str = "prompt",
        split_key: str = "split",
        default_split: str = "train",
    ) -> TaskSet:
        """Build tasks from dicts; keys other than id, prompt and split go to ``Task.data``."""
        tasks = []
        for i, rec in enumerate(records):
            if id_key not in rec or prompt_key not in rec:
                raise TaskError(
                    f"task set {name!r}: record {i} lacks {id_key!r} or {prompt_key!r}"
                )
            data = {k: v for k, v in rec.items() if k not in (id_key, prompt_key, split_key)}
            split = str(rec.get(split_key, default_split))
            tasks.append(Task(str(rec[id_key]), split, rec[prompt_key], data))
        return cls(tasks, name=name)

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: Any) -> TaskSet:
        """Load a ``.jsonl`` (one task per line) or ``.json`` (a list of tasks) file."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
            if path.suffix == ".jsonl":
                records = [json.loads(line) for line in text.splitlines() if line.strip()]
            else:
                records = json.loads(text)
        except (OSError, json.JSONDecodeError) as e:
            raise TaskError(f"cannot read tasks from {path}: {e}") from e
        kwargs.setdefault("name", path.stem)
        return cls.from_records(records, **kwargs)

    @classmethod
    def from_hf(cls, dataset: str, splits: Sequence[str] = ("train", "test"), **kwargs: Any) -> (
        TaskSet
    ):
        """Load tasks from a Hugging Face dataset (needs ``datasets`` and the data available)."""
        try:
            import datasets
        except ImportError as e:
            raise missing_extra("datasets", "all") from e
        records = []
        for split in splits:
            for rec in datasets.load_dataset(dataset, split=split):
                records.append({**rec, kwargs.get("split_key", "split"): split})
        kwargs.setdefault("name", dataset)
        return cls.from_records(records, **kwargs)

    @property
    def splits(self) -> dict[str, int]:
        """Split name -> number of tasks, in first-seen order."""
        return dict(Counter(t.split for t in self._tasks))

    def split(self, name: str) -> TaskSet:
        """The tasks of one split (raises :class:`TaskError` for an unknown split)."""
        if name not in self.splits:
            raise TaskError(
                f"task set {self.name!r} has no split {name!r}; splits: {', '.join(self.splits)}"
            )
        return TaskSet((t for t in self._tasks if t.split == name), name=f"{self.name}:{name}")

    def get(self, task_id: str) -> Task:
        """The task with ``task_id``."""
        try:
            return self._by_id[task_id]
        except KeyError:
            raise TaskError(f"task set {self.name!r} has no task {task_id!r}") from None

    def check(self) -> None:
        """Raise :class:`SplitLeakError` if two splits share a task's content."""
        owners: dict[str, Task] = {}
        for t in self._tasks:
            other = owners.setdefault(t.fingerprint(), t)
            if other.split != t.split:
                raise SplitLeakError(
                    f"task set {self.name!r}: {t.task_id!r} ({t.split}) repeats "
                    f"{other.task_id!r} ({other.split})"
                )

    def ids(self) -> list[str]:
        """Task ids in order."""
        return [t.task_id for t in self._tasks]

    def __getitem__(self, index: int) -> Task:
        return self._tasks[index]

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks)

    def __len__(self) -> int:
        return len(self._tasks)
