"""The worker that scores WebArena-Verified episodes with the ``webarena-verified`` package itself.

The package pins older libraries than the project's (pydantic, python-dateutil), so it lives in
its own environment, ``.venv-webarena-verified`` (``make setup-webarena-verified``), and this
file runs there as a script (``python verified_worker.py``): it imports only the standard
library, the package and, for reference answers, ``exrex`` and :mod:`verified_reference` next
to it. :mod:`.verified_client` starts it and speaks to it.

Protocol: one JSON object a line on stdin, one JSON reply a line on stdout (the package's own
output goes to stderr). Requests:

- ``{"op": "ping"}`` -> ``{"ok": true, "version": "1.2.3", "tasks": 812}``;
- ``{"op": "score", "task_id": 44, "response": "<the agent's answer>", "har": [HAR entries],
  "environments": {"gitlab": "http://127.0.0.1:8023"}, "dataset": optional task file}`` ->
  ``{"ok": true, "score": 1.0,
  "status": "success", "error": null, "evaluators": [{"name", "score", "status", "messages"}]}``
  (the package's ``WebArenaVerified.evaluate_task``);
- ``{"op": "reference", "task_id": 44, "environments": {...}}`` -> ``{"ok": true, "response":
  {...}, "har": [...]}``: the answer and network log the task's own expectations describe.

A request the package cannot handle gets ``{"ok": false, "error": "..."}``; the worker goes on.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any

MAX_LINE = 64 * 1024 * 1024
"""The longest request read (a bounded network log is far smaller)."""


def _api(environments: dict[str, str], cache: dict[str, Any], dataset: Any = None) -> Any:
    """A ``WebArenaVerified`` for these site URLs (one per distinct mapping, kept), on the
    package's own tasks or, with ``dataset``, on the task file at that path (the twin's,
    :mod:`verified_twin`; a missing file is refused, never replaced by the package's)."""
    key = json.dumps([environments, dataset], sort_keys=True)
    if key not in cache:
        from webarena_verified.api import WebArenaVerified
        from webarena_verified.types.config import EnvironmentConfig, WebArenaVerifiedConfig

        extra: dict[str, Any] = {}
        if dataset is not None:
            if not isinstance(dataset, str) or not os.path.isfile(dataset):
                raise ValueError(f"no task file {dataset!r}")
            extra["test_data_file"] = dataset
        config = WebArenaVerifiedConfig(environments={
            site.strip("_").lower(): EnvironmentConfig(urls=[str(url).rstrip("/")])
            for site, url in environments.items()} or None, **extra)
        cache[key] = WebArenaVerified(config=config) if dataset is None else _on_file(config)
    return cache[key]


def _on_file(config: Any) -> Any:
    """A ``WebArenaVerified`` on the tasks of ``config.test_data_file``, as its ``__init__``
    builds one, loaded as a subset of all their ids (the package checks a full file for its
    812 tasks; a subset skips that count, and every task is still validated by its model)."""
    from webarena_verified.api import WebArenaVerified
    from webarena_verified.api.internal.data_reader import WebArenaVerifiedDataReader
    from webarena_verified.api.internal.evaluator import WebArenaVerifiedEvaluator
    from webarena_verified.types.data import TaskSubset

    with open(config.test_data_file, encoding="utf-8") as f:
        ids = [int(task["task_id"]) for task in json.load(f)]
    subset = TaskSubset(task_ids=ids, checksum=TaskSubset.compute_checksum(ids),
                        description="agentgym: WebArena-Verified-style tasks on the twin")
    api = WebArenaVerified.__new__(WebArenaVerified)
    api._config = config
    api._reader = WebArenaVerifiedDataReader(config, subset=subset)
    api._evaluator = WebArenaVerifiedEvaluator(config=config, reader=api._reader)
    return api


def _score(request: dict[str, Any], cache: dict[str, Any]) -> dict[str, Any]:
    api = _api(request.get("environments") or {}, cache, request.get("dataset"))
    har = request.get("har") or []
    if not isinstance(har, list):
        raise ValueError("har must be a list of HAR entries")
    response = request.get("response")
    result = api.evaluate_task(task_id=int(request["task_id"]),
                               agent_response=response if response is not None else "",
                               network_trace=har or None)
    parts = []
    for part in result.evaluators_results or ():
        messages = [m for a in part.assertions or () for m in (a.assertion_msgs or ())]
        parts.append({"name": part.evaluator_name, "score": float(part.score),
                      "status": str(part.status), "messages": messages[:8],
                      "error": part.error_msg})
    return {"ok": True, "score": float(result.score), "status": str(result.status),
            "error": result.error_msg, "evaluators": parts}


def _reference(request: dict[str, Any], cache: dict[str, Any]) -> dict[str, Any]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import verified_reference

    environments = request.get("environments") or {}
    api = _api(environments, cache, request.get("dataset"))
    task = api.get_task(int(request["task_id"]))
    response, har = verified_reference.reference_episode(task, api.config)
    return {"ok": True, "response": response, "har": har}


def handle(request: Any, cache: dict[str, Any]) -> dict[str, Any]:
    """One request's reply (never raises)."""
    try:
        if not isinstance(request, dict):
            raise ValueError("a request is a JSON object")
        op = request.get("op")
        if op == "ping":
            from importlib.metadata import version

            api = _api({}, cache)
            return {"ok": True, "version": version("webarena-verified"),
                    "tasks": len(api.get_tasks())}
        if op == "score":
            return _score(request, cache)
        if op == "reference":
            return _reference(request, cache)
        raise ValueError(f"unknown op {op!r}")
    except Exception as e:  # noqa: BLE001 -- the reply names it; the worker serves on
        return {"ok": False, "error": f"{type(e).__name__}: {e}"[:2000]}


def main() -> None:
    """Serve requests until stdin closes."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr  # the package's prints never reach the protocol
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    logging.getLogger("WebArena-Verified").setLevel(logging.CRITICAL)
    cache: dict[str, Any] = {}
    for line in sys.stdin:
        if len(line) > MAX_LINE:
            reply = {"ok": False, "error": "request too long"}
        else:
            try:
                reply = handle(json.loads(line), cache)
            except json.JSONDecodeError as e:
                reply = {"ok": False, "error": f"not JSON: {e}"}
        out.write(json.dumps(reply, default=str) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
