"""WebArena-Verified-style tasks on the bundled twin, scored by the ``webarena-verified`` package.

The twin's ports of WebArena-Lite's templates (the ``lite-test`` / ``lite-train`` splits,
:mod:`.twin_ports`) are converted into the package's task format: the agent ends with a JSON
answer (task type, status, retrieved data) checked by its ``AgentResponseEvaluator``, and a
navigation task's gold URL is checked on the episode's network log (:mod:`.netlog`) by its
``NetworkEventEvaluator``. Converted, where the mapping is clean:

- retrieval: ``string_match`` alone with one reference string (``exact_match``, or a single
  ``must_include`` / ``fuzzy_match`` value) -> ``RETRIEVE`` with ``retrieved_data`` that one string;
- navigation: ``url_match`` alone -> ``NAVIGATE`` plus a network-event check on the gold URL(s);
- change: ``program_html`` (with or without ``url_match``) -> ``MUTATE`` plus a network-event
  check per request the expert made to change it, as recorded in Chromium
  (:mod:`.verified_twin_mutations`).

Not converted (:func:`convert` names the reason): answers checked by several fragments (the list
of values asked for is not known), "N/A" answers, changes with no recorded request, and tasks
mixing answer and URL checks.

The tasks are written once per process to a JSON file in the package's format; the worker
(:mod:`.verified_client`) scores an episode against it exactly as ``web/webarena-verified-v0``
is scored against the package's own file.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from agentgym.private_dirs import private_dir, user_tmp_dir
from agentgym.tasks import Task, TaskSet

from .env import WebArenaEnv
from .tasks import load_tasks
from .verified_client import VerifiedWorkerError, scorer, worker_python
from .verified_twin_mutations import network_checks

PACKAGE_FIELDS = ("sites", "task_id", "intent_template_id", "start_urls", "intent",
                  "intent_template", "instantiation_dict", "eval", "revision")
"""The fields of a task in the package's file (it refuses others); the env's config has more."""
SPLITS = {"test": "lite-test", "train": "lite-train"}
"""This set's split -> the twin split its tasks come from."""
ID_BASE = {"test": 0, "train": 10000}
"""First task id of each split (the package's ids are integers, unique over the file)."""


def _one_string(answers: dict[str, Any]) -> str | None:
    kinds = {k: v for k, v in answers.items() if v}
    if len(kinds) != 1:
        return None
    (kind, value), = kinds.items()
    if kind == "exact_match" and isinstance(value, str):
        return value
    if kind in ("must_include", "fuzzy_match") and isinstance(value, list) and len(value) == 1:
        return str(value[0])
    return None


def convert(config: dict[str, Any], task_id: int) -> tuple[dict[str, Any] | None, str]:
    """The twin task ``config`` as a WebArena-Verified task (with an ``expert`` ending in the
    expected JSON answer), or None and why it does not convert cleanly."""
    ev = config.get("eval") or {}
    expected: dict[str, Any]
    kinds = tuple(ev.get("eval_types") or ())
    if kinds == ("string_match",):
        value = _one_string(ev.get("reference_answers") or {})
        if value is None:
            return None, "retrieve: several answer fragments"
        if value.strip().upper() in ("N/A", "") or "N/A" in str(ev.get("string_note", "")):
            return None, "retrieve: N/A answer"
        expected = {"task_type": "retrieve", "status": "SUCCESS", "retrieved_data": [value]}
        checks: list[dict[str, Any]] = [{"evaluator": "AgentResponseEvaluator",
                                         "results_schema": {"type": "array",
                                                            "items": {"type": "string"}},
                                         "expected": expected}]
    elif kinds == ("url_match",):
        urls = [u.strip() for u in str(ev.get("reference_url", "")).split(" |OR| ") if u.strip()]
        if not urls:
            return None, "navigate: no gold URL"
        expected = {"task_type": "navigate", "status": "SUCCESS", "retrieved_data": None}
        checks = [{"evaluator": "AgentResponseEvaluator", "results_schema": {"type": "null"},
                   "expected": expected},
                  {"evaluator": "NetworkEventEvaluator",
                   "expected": {"url": urls if len(urls) > 1 else urls[0]}}]
    elif "program_html" in kinds and "string_match" not in kinds:
        recorded = network_checks(config)
        if recorded is None:
            return None, "mutate: no recorded request"
        expected = {"task_type": "mutate", "status": "SUCCESS", "retrieved_data": None}
        checks = [{"evaluator": "AgentResponseEvaluator", "results_schema": {"type": "null"},
                   "expected": expected}, *recorded]
    else:
        return None, "mixed answer and URL checks"
    expert = copy.deepcopy(config.get("expert") or [])
    if not expert or expert[-1].get("op") != "stop":
        return None, "no scripted expert"
    expert[-1]["answer"] = json.dumps({**expected, "task_type": expected["task_type"].upper()})
    start = config.get("start_url") or ""
    return {"sites": list(config["sites"]), "task_id": task_id,
            "intent_template_id": int(config.get("intent_template_id") or 0),
            "start_urls": start.split(" |AND| ") if start else [],
            "start_url": start, "intent": config["intent"],
            "intent_template": config.get("intent_template") or config["intent"],
            "instantiation_dict": config.get("instantiation_dict") or {},
            "require_login": bool(config.get("require_login")),
            "storage_state": config.get("storage_state"), "geolocation": None,
            "require_reset": bool(config.get("require_reset")),
            "eval": checks, "revision": 1, "expert": expert,
            "twin_task_id": config.get("task_id")}, ""


@cache
def converted() -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    """The converted tasks by split, and how many twin tasks did not convert, by reason."""
    out: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    skipped: dict[str, int] = {}
    twin = load_tasks()
    for split, source in SPLITS.items():
        if source not in twin.splits:
            continue
        for task in twin.split(source):
            record, why = convert(task.data["config"], ID_BASE[split] + len(out[split]))
            if record is None:
                skipped[why] = skipped.get(why, 0) + 1
            else:
                out[split].append(record)
    return out, skipped


@cache
def _dataset_text() -> str:
    return json.dumps([{k: r[k] for k in PACKAGE_FIELDS} for split in SPLITS
                       for r in converted()[0][split]], sort_keys=True)


def task_file_folder() -> Path:
    """This user's private folder for the task file (:func:`agentgym.private_dirs.private_dir`:
    a folder another local user made or may write is refused, never read)."""
    return private_dir(user_tmp_dir("agentgym-verified-twin"))


def dataset_file() -> Path:
    """The converted tasks in the package's format, in a file named by their hash in this
    user's private folder (written again if something removed it): the scorer reads its
    expectations from it, so nobody else may have placed it."""
    text = _dataset_text()
    path = task_file_folder() / f"tasks-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    if not path.exists():
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_text(text, encoding="utf-8")
        part.replace(path)
    return path


def load_verified_twin() -> TaskSet:
    """Both splits (for ``agentgym list`` and ``agentgym eval``)."""
    tasks = [Task(str(r["task_id"]), split, r["intent"], {"config": r})
             for split in SPLITS for r in converted()[0][split]]
    return TaskSet(tasks, name="webarena-verified-twin")


class VerifiedTwinEnv(WebArenaEnv):
    """The twin's converted tasks (:func:`convert`), scored by the ``webarena-verified``
    package on the JSON answer and the episode's network log."""

    def __init__(self, split: str = "test", *, task_ids: list[Any] | None = None,
                 **options: Any) -> None:
        """``split``: ``test`` or ``train``; other options as :class:`.WebArenaEnv`'s (bundled
        sites only). Raises :class:`~.verified_client.VerifiedEvaluatorMissing` when
        ``make setup-webarena-verified`` has not been run."""
        if split not in SPLITS:
            raise ValueError(f"split must be one of {sorted(SPLITS)}, not {split!r}")
        worker_python()
        super().__init__(split, **options)
        if self.external:
            raise ValueError("the Verified twin tasks run on the bundled sites only")
        tasks = [t for t in load_verified_twin() if t.split == split]
        if task_ids is not None:
            wanted = {str(t) for t in task_ids}
            tasks = [t for t in tasks if t.task_id in wanted]
            if missing := wanted - {t.task_id for t in tasks}:
                raise ValueError(f"no task {', '.join(sorted(missing))} in {split}")
        self.task_set = TaskSet(tasks, name="webarena-verified-twin")

    async def evaluate(self, action: Any) -> tuple[float, bool, dict[str, Any]]:
        """0 until ``stop``; then the package's score of the answer and network log."""
        if action.name != "stop" or self.task is None:
            return 0.0, False, {}
        network_log = await self.netlog.snapshot()
        config = self.task.data["config"]
        environments = {s: self.site_urls[s] for s in config["sites"] if s in self.site_urls}
        reply = await asyncio.to_thread(scorer().call, {
            "op": "score", "task_id": int(config["task_id"]), "response": self.answer,
            "har": network_log, "environments": environments, "dataset": str(dataset_file())})
        parts = {p["name"] + (f"[{i}]" if i else ""): p["score"]
                 for i, p in enumerate(reply.get("evaluators") or [])}
        info: dict[str, Any] = {"eval": parts, "eval_notes": [
            f"{p['name']}: {m}" for p in reply.get("evaluators") or [] for m in p["messages"]]}
        if not reply.get("ok"):  # the worker refused the request: not the agent's failure
            raise VerifiedWorkerError(f"the webarena-verified worker: {reply.get('error')}")
        score = float(reply.get("score") or 0.0)
        if reply.get("status") == "error":
            info["eval_error"] = str(reply.get("error") or "the package could not evaluate")[:500]
            score = 0.0
        self.result_info = {"success": score >= 1.0, **info, "answer": self.answer,
                            "network_log": network_log,
                            "network_log_dropped": self.netlog.dropped}
        return score, True, dict(self.result_info)
