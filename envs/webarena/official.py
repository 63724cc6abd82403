"""The official WebArena task sets, read at run time from the installed packages.

Nothing of them is copied into this repository. Three sets:

- ``webarena-lite``: WebArena-Lite's 165 tasks (VisualAgentBench's ``test_webarena_lite.raw.json``,
  shipped in ``browsergym-webarenalite``), task ids 0-164 (``old_task_id`` is WebArena's id).
- ``webarena``: WebArena's 812 tasks (the original ``test.raw.json``, shipped in
  ``webarena-verified``), task ids 0-811.
- ``webarena-verified``: WebArena-Verified's 812 revised tasks (``webarena-verified.json``) in two
  splits, ``hard`` (the package's ``webarena-verified-hard`` subset, 258 tasks) and ``non-hard``
  (554); the env's split ``test`` is both.

The files are found through the distributions' file lists (:mod:`importlib.metadata`), so the
packages are never imported: ``browsergym-webarenalite`` pins an old Playwright and both pin
old libraries, so ``scripts/setup.sh`` installs them with ``--no-deps`` (they are only data here).
A missing package raises :class:`OfficialTasksMissing` naming the extra and the command.
WebArena-Verified's own checks are scored by :mod:`.official_verified`.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from agentgym.errors import MissingExtra
from agentgym.tasks import Task, TaskSet

PACKAGES = {"browsergym-webarenalite": "0.14.3", "webarena-verified": "1.2.3"}
"""The task packages and the versions the evaluators were checked against."""
INSTALL = ("pip install 'agentgym[webarena]' && pip install --no-deps "
           + " ".join(f"{k}=={v}" for k, v in PACKAGES.items()))
"""How to install them (``--no-deps``: their pins would downgrade Playwright and pydantic)."""
SOURCES = {
    "webarena-lite": ("browsergym-webarenalite",
                      "browsergym/webarenalite/test_webarena_lite.raw.json"),
    "webarena": ("webarena-verified", "webarena_verified/assets/dataset/test.raw.json"),
    "webarena-verified": ("webarena-verified",
                          "webarena_verified/assets/dataset/webarena-verified.json"),
}
"""Task set name -> (distribution, file inside it)."""
HARD_SUBSET = "webarena_verified/assets/dataset/subsets/webarena-verified-hard.json"
TASK_SETS = tuple(SOURCES)


class OfficialTasksMissing(MissingExtra):
    """The package that ships an official task set is not installed."""


def package_file(distribution: str, path: str) -> Path:
    """The installed file ``path`` of ``distribution`` (never imports the package)."""
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError as e:
        raise OfficialTasksMissing(
            f"the official WebArena tasks need the [webarena] extra and the package "
            f"{distribution}: {INSTALL}") from e
    for entry in dist.files or ():
        if str(entry) == path:
            return Path(str(dist.locate_file(entry)))
    raise OfficialTasksMissing(f"{distribution} {dist.version} has no {path}; {INSTALL}")


@cache
def _read(name: str) -> tuple[dict[str, Any], ...]:
    if name not in SOURCES:
        raise KeyError(f"unknown official task set {name!r}; known: {', '.join(TASK_SETS)}")
    records = json.loads(package_file(*SOURCES[name]).read_text(encoding="utf-8"))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise OfficialTasksMissing(f"{SOURCES[name][1]} is not a list of tasks")
    return tuple(records)


def read_official(name: str) -> list[dict[str, Any]]:
    """Fresh copies of the task records of ``name`` (``webarena-lite``, ``webarena``,
    ``webarena-verified``), in the file's order."""
    return json.loads(json.dumps(_read(name)))


def hard_ids() -> set[int]:
    """WebArena-Verified's hard subset (task ids)."""
    data = json.loads(package_file("webarena-verified", HARD_SUBSET).read_text(encoding="utf-8"))
    return {int(i) for i in data["task_ids"]}


def verified_to_config(record: dict[str, Any]) -> dict[str, Any]:
    """A WebArena-Verified record in the env's task shape: ``start_urls`` joined as WebArena's
    ``start_url``, a login where the site has one, and the verified checks kept as they are."""
    config = dict(record)
    config["start_url"] = " |AND| ".join(record.get("start_urls") or [])
    config.setdefault("require_login", any(
        s in ("shopping", "shopping_admin", "reddit", "gitlab") for s in record["sites"]))
    return config


@cache
def load_official(name: str) -> TaskSet:
    """The task set ``name`` as agentgym tasks (``data["config"]`` is the record)."""
    tasks: list[Task] = []
    if name == "webarena-verified":
        hard = hard_ids()
        for rec in _read(name):
            split = "hard" if int(rec["task_id"]) in hard else "non-hard"
            tasks.append(Task(str(rec["task_id"]), split, str(rec["intent"]),
                              {"config": verified_to_config(rec)}))
    else:
        tasks = [Task(str(r["task_id"]), "test", str(r["intent"]), {"config": dict(r)})
                 for r in _read(name)]
    return TaskSet(tasks, name=name)


def load_lite() -> TaskSet:
    """WebArena-Lite's 165 official tasks (for ``agentgym list``)."""
    return load_official("webarena-lite")


def load_webarena() -> TaskSet:
    """WebArena's 812 tasks."""
    return load_official("webarena")


def load_verified() -> TaskSet:
    """WebArena-Verified's tasks: ``hard`` (258) and ``non-hard`` (554)."""
    return load_official("webarena-verified")


def official_split(name: str, split: str) -> TaskSet:
    """One split of ``name``; ``test`` is every task of the set."""
    tasks = load_official(name)
    if split == "test" and "test" not in tasks.splits:
        return TaskSet([Task(t.task_id, "test", t.prompt, t.data) for t in tasks],
                       name=f"{name}/test")
    return tasks.split(split)


__all__ = ["INSTALL", "PACKAGES", "TASK_SETS", "OfficialTasksMissing", "hard_ids",
           "load_official", "official_split", "package_file", "read_official"]
