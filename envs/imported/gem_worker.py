"""The worker that plays GEM's envs (PyPI ``gem-llm``) with GEM's own ``gem.make``.

gem-llm 0.1.0 pins ``reasoning-gym==0.1.23``, ``nltk==3.9.1`` and ``msgspec==0.19.0``, which
clash with the project's ``.venv``, so it lives in ``.venv-gem`` (``scripts/setup_gem_venv.sh``)
and this file runs there as a script (``python -P gem_worker.py``), importing only the standard
library and GEM. :mod:`.gem_client` starts it (through the JSON-lines worker of the
WebArena-Verified scorer) and :mod:`.gem_env` speaks to it.

Protocol: one JSON object a line on stdin, one JSON reply a line on stdout (GEM's own output
and logging go to stderr). Requests:

- ``{"op": "ping"}`` -> ``{"ok": true, "version": "0.1.0"}``;
- ``{"op": "list"}`` -> ``{"ok": true, "ids": [...]}``: every id GEM registers that loads
  no Hub dataset;
- ``{"op": "info", "id": "game:..."}`` -> ``{"ok": true, "exists", "max_turns", "dataset",
  "entry_point"}``: the registered spec (``dataset``: the Hub dataset it loads, if any);
- ``{"op": "reset", "session": "s1", "id": "game:...", "kwargs": {...}, "seed": 3}`` -> ``{"ok":
  true, "observation", "info", "max_turns"}``: a new env of the session (``gem.make``), reset
  with the seed; a make that fails answers ``"refused": true`` with GEM's error;
- ``{"op": "step", "session": "s1", "action": "..."}`` -> ``{"ok": true, "observation",
  "reward", "terminated", "truncated", "info"}``;
- ``{"op": "close", "session": "s1"}``.

A request that fails gets ``{"ok": false, "error": "..."}``; the worker goes on. An unknown
session (a restarted worker) answers ``"lost": true``.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
from typing import Any

MAX_LINE = 16 * 1024 * 1024
"""The longest request read."""


def _jsonable(value: Any, depth: int = 0) -> Any:
    if isinstance(value, (str, bool, int)) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth < 4 and isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if depth < 4 and isinstance(value, (list, tuple)):
        return [_jsonable(v, depth + 1) for v in value]
    return repr(value)[:2000]


class Worker:
    """The sessions (one GEM env each) and the request handlers."""

    def __init__(self) -> None:
        self.sessions: dict[str, Any] = {}

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        """One reply for ``req``."""
        import gem

        op = req.get("op")
        if op == "ping":
            from gem.__about__ import __version__

            return {"ok": True, "version": __version__}
        if op == "list":
            from gem.envs.registration import ENV_REGISTRY

            return {"ok": True, "ids": sorted(i for i, spec in ENV_REGISTRY.items()
                                              if "dataset_name" not in (spec.kwargs or {}))}
        if op == "info":
            from gem.envs.registration import ENV_REGISTRY

            spec = ENV_REGISTRY.get(str(req.get("id")))
            if spec is None:
                return {"ok": True, "exists": False}
            kwargs = dict(spec.kwargs or {})
            turns = kwargs.get("max_turns")
            return {"ok": True, "exists": True, "dataset": kwargs.get("dataset_name"),
                    "max_turns": turns if isinstance(turns, int) else None,
                    "entry_point": str(spec.entry_point)}
        session = str(req.get("session", ""))
        if op == "reset":
            self._close(session)
            try:
                env = gem.make(str(req["id"]), **dict(req.get("kwargs") or {}))
            except Exception as e:  # unknown id, bad kwargs, data it cannot download
                return {"ok": False, "refused": True, "error": f"{type(e).__name__}: {e}"[:1000]}
            self.sessions[session] = env
            obs, info = env.reset(seed=int(req["seed"]))
            turns = getattr(env.unwrapped, "max_turns", None)
            return {"ok": True, "observation": str(obs), "info": _jsonable(info),
                    "max_turns": turns if isinstance(turns, int) else None}
        if op == "step":
            if session not in self.sessions:
                return {"ok": False, "lost": True, "error": f"no session {session!r}"}
            obs, reward, terminated, truncated, info = self.sessions[session].step(
                str(req["action"]))
            return {"ok": True, "observation": str(obs), "reward": float(reward),
                    "terminated": bool(terminated), "truncated": bool(truncated),
                    "info": _jsonable(info)}
        if op == "close":
            self._close(session)
            return {"ok": True}
        return {"ok": False, "error": f"unknown op {op!r}"}

    def _close(self, session: str) -> None:
        env = self.sessions.pop(session, None)
        close = getattr(env, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # closing a finished game must not fail the next request
                logging.exception("closing a GEM env")


def main() -> None:
    """Serve requests until stdin closes."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # GEM's prints go to stderr, never into the reply stream
    sys.stdout = sys.stderr
    worker = Worker()
    for line in sys.stdin:
        if len(line) > MAX_LINE:
            reply: dict[str, Any] = {"ok": False, "error": "request too long"}
        else:
            try:
                reply = worker.handle(json.loads(line))
            except Exception as e:  # one bad request must not end the worker
                reply = {"ok": False, "error": f"{type(e).__name__}: {e}"[:1000]}
        out.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    main()
