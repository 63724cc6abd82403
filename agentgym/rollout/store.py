"""Append-only trajectory store: JSONL records, an index, images as files beside them.

Layout of a store folder::

    trajectories.jsonl   one Trajectory.to_json() per line, appended as episodes finish
    index.jsonl          one line per record: key, byte offset and length, outcome summary
    images/<key>/N.png   observation images, referenced by Trajectory.image_paths

Each record is flushed and fsynced when it is appended, so a killed run loses only the episodes
in flight. Reopening a store resumes it: a torn last line is cut off, the index is rebuilt from
the records if it disagrees with them, and :meth:`TrajectoryStore.done_keys` tells the caller
which ``(task_id, sample_idx)`` to skip. The last record of a key wins (a retried episode).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import AgentGymError
from .trajectory import Trajectory

logger = logging.getLogger(__name__)

RECORDS, INDEX, IMAGES = "trajectories.jsonl", "index.jsonl", "images"


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name)[:120] or "_"


def _write_durably(fh: Any, data: bytes) -> None:
    fh.write(data)
    fh.flush()
    os.fsync(fh.fileno())


class TrajectoryStore:
    """An append-only store of trajectories in folder ``root``."""

    def __init__(self, root: str | Path, *, resume: bool = True) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.records_path = self.root / RECORDS
        self.index_path = self.root / INDEX
        if not resume and self.records_path.exists() and self.records_path.stat().st_size:
            raise AgentGymError(f"{self.records_path} already holds trajectories; resume it or "
                                "choose another folder")
        self._index: dict[tuple[str | None, int], dict[str, Any]] = {}
        self._recover()
        self._records = open(self.records_path, "ab")  # noqa: SIM115 - kept open for appends
        self._index_fh = open(self.index_path, "ab")  # noqa: SIM115

    # -- recovery ------------------------------------------------------------------------------

    def _recover(self) -> None:
        if not self.records_path.exists():
            self.records_path.touch()
            self.index_path.write_bytes(b"")
            return
        data = self.records_path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            logger.warning("cutting a torn last record (%d bytes) from %s", len(data) - end,
                           self.records_path)
            with open(self.records_path, "r+b") as fh:
                fh.truncate(end)
            data = data[:end]
        entries = self._read_index(len(data))
        if entries is None:
            logger.warning("rebuilding %s from the records", self.index_path)
            entries = list(self._scan(data))
            self.index_path.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in entries))
        for entry in entries:
            self._index[(entry["task_id"], entry["sample_idx"])] = entry

    def _read_index(self, size: int) -> list[dict[str, Any]] | None:
        if not self.index_path.exists():
            return None
        entries, covered = [], 0
        for line in self.index_path.read_bytes().splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                return None
            entries.append(entry)
            covered = max(covered, entry["offset"] + entry["length"])
        return entries if covered == size else None

    @staticmethod
    def _scan(data: bytes) -> Iterator[dict[str, Any]]:
        offset = 0
        for line in data.splitlines(keepends=True):
            if line.strip():
                yield _entry(Trajectory.from_json(line.decode()), offset, len(line))
            offset += len(line)

    # -- writing -------------------------------------------------------------------------------

    def _save_images(self, traj: Trajectory) -> None:
        if not traj.images:
            return
        folder = self.root / IMAGES / _safe(f"{traj.task_id}_{traj.sample_idx}_{traj.group_id}")
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for i, image in enumerate(traj.images):
            path = folder / f"{i}.png"
            with open(path, "wb") as fh:
                _write_durably(fh, image)
            paths.append(str(path.relative_to(self.root)))
        traj.image_paths = paths

    def append(self, traj: Trajectory) -> None:
        """Write one finished trajectory (images first, then the record, then its index line)."""
        self._save_images(traj)
        line = (traj.to_json() + "\n").encode()
        offset = self._records.tell()
        _write_durably(self._records, line)
        entry = _entry(traj, offset, len(line))
        _write_durably(self._index_fh, json.dumps(entry).encode() + b"\n")
        self._index[(traj.task_id, traj.sample_idx)] = entry

    # -- reading -------------------------------------------------------------------------------

    def done_keys(self, *, include_aborted: bool = False) -> set[tuple[str | None, int]]:
        """``(task_id, sample_idx)`` already stored (aborted ones are retried unless asked)."""
        return {k for k, e in self._index.items() if include_aborted or not e["aborted"]}

    def successes(self, keys: set[tuple[str | None, int]]) -> int:
        """How many of ``keys`` are stored as completed successes (read from the index)."""
        return sum(1 for k, e in self._index.items()
                   if k in keys and e.get("success") and not e["aborted"])

    def get(self, task_id: str | None, sample_idx: int) -> Trajectory:
        """The latest trajectory stored for a key."""
        entry = self._index[(task_id, sample_idx)]
        with open(self.records_path, "rb") as fh:
            fh.seek(entry["offset"])
            return Trajectory.from_json(fh.read(entry["length"]).decode())

    def __iter__(self) -> Iterator[Trajectory]:
        """The latest trajectory of every key, in the order they were first stored."""
        for task_id, sample_idx in list(self._index):
            yield self.get(task_id, sample_idx)

    def __len__(self) -> int:
        return len(self._index)

    def close(self) -> None:
        """Close the files."""
        self._records.close()
        self._index_fh.close()

    def __enter__(self) -> TrajectoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _entry(traj: Trajectory, offset: int, length: int) -> dict[str, Any]:
    return {
        "task_id": traj.task_id, "sample_idx": traj.sample_idx, "offset": offset,
        "length": length, "reward": traj.reward, "success": traj.success,
        "aborted": traj.aborted,
    }


def iter_jsonl(path: str | Path) -> Iterator[Trajectory]:
    """Every trajectory in a JSONL file (a store's records or any export)."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield Trajectory.from_json(line)


__all__ = ["TrajectoryStore", "iter_jsonl"]
