"""Talks to the ``webarena-verified`` worker (:mod:`.verified_worker`) from the project's env.

:func:`scorer` gives the process-wide :class:`VerifiedScorer`, which starts the worker in
``.venv-webarena-verified`` on first use (``make setup-webarena-verified``; another interpreter
with ``AGENTGYM_WEBARENA_VERIFIED_PYTHON``) and sends it one request at a time. A missing
environment raises :class:`VerifiedEvaluatorMissing` (the command to run); a worker that dies or
answers garbage raises :class:`VerifiedWorkerError`, an infrastructure failure (the episode is
aborted, never scored as the model's).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

from agentgym.errors import InfrastructureError, MissingExtra

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-webarena-verified"
WORKER = Path(__file__).with_name("verified_worker.py")
SETUP = "make setup-webarena-verified"


class VerifiedEvaluatorMissing(MissingExtra):
    """The ``webarena-verified`` environment is not set up."""


class VerifiedWorkerError(InfrastructureError):
    """The worker died or answered something that is not a reply."""


def worker_python() -> Path:
    """The interpreter of the ``webarena-verified`` environment."""
    override = os.environ.get("AGENTGYM_WEBARENA_VERIFIED_PYTHON")
    path = Path(override) if override else VENV / "bin" / "python"
    if not path.exists():
        raise VerifiedEvaluatorMissing(
            f"WebArena-Verified's evaluator runs in its own environment ({path} is missing): "
            f"run `{SETUP}`")
    return path


class VerifiedScorer:
    """One worker process; :meth:`call` is thread-safe (requests go one at a time)."""

    def __init__(self, python: Path | None = None, *, timeout_s: float = 120.0) -> None:
        self.python = python
        self.timeout_s = timeout_s
        """Longest wait for one reply: past it the worker is killed (the call raises
        :class:`VerifiedWorkerError`) and the next call starts a fresh one."""
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        python = self.python or worker_python()
        return subprocess.Popen([str(python), str(WORKER)], stdin=subprocess.PIPE,  # noqa: S603
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                encoding="utf-8", bufsize=1)

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request, return the reply (``ok`` false: the package refused it)."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._start()
            proc = self._proc
            assert proc.stdin is not None and proc.stdout is not None  # noqa: S101
            expired = threading.Event()

            def expire() -> None:  # ends a blocked write or read: the pipes close
                expired.set()
                proc.kill()

            deadline = threading.Timer(self.timeout_s, expire)
            deadline.start()
            try:
                proc.stdin.write(json.dumps(request) + "\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                reply = json.loads(line)
            except (OSError, ValueError) as e:
                self._stop()
                why = (f"no reply within {self.timeout_s:g} s (killed)" if expired.is_set()
                       else str(e))
                raise VerifiedWorkerError(f"the webarena-verified worker failed: {why}") from e
            finally:
                deadline.cancel()
            if not isinstance(reply, dict):
                self._stop()
                raise VerifiedWorkerError("the webarena-verified worker answered a non-object")
            return reply

    def score(self, task_id: int, response: str | None, har: list[dict[str, Any]],
              environments: dict[str, str]) -> dict[str, Any]:
        """The package's verdict on one episode (``score``, ``status``, ``evaluators``)."""
        return self.call({"op": "score", "task_id": int(task_id), "response": response,
                          "har": har, "environments": environments})

    def reference(self, task_id: int, environments: dict[str, str]) -> dict[str, Any]:
        """The task's reference answer and network log (:mod:`.verified_reference`)."""
        return self.call({"op": "reference", "task_id": int(task_id),
                          "environments": environments})

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        """Stop the worker (it also stops when stdin closes with this process)."""
        with self._lock:
            if self._proc is not None and self._proc.stdin is not None:
                self._proc.stdin.close()
                try:
                    self._proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait()
                self._proc = None


_SCORER: VerifiedScorer | None = None
_SCORER_LOCK = threading.Lock()


def scorer() -> VerifiedScorer:
    """The process-wide scorer (its worker starts on the first request)."""
    global _SCORER
    with _SCORER_LOCK:
        if _SCORER is None:
            worker_python()  # fail early, with the command, when it is not set up
            _SCORER = VerifiedScorer()
        return _SCORER


def available() -> bool:
    """Whether the ``webarena-verified`` environment is set up."""
    try:
        worker_python()
    except VerifiedEvaluatorMissing:
        return False
    return True


__all__ = ["VerifiedEvaluatorMissing", "VerifiedScorer", "VerifiedWorkerError", "available",
           "scorer"]
