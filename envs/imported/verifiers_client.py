"""The verifiers worker's client: one worker process per agentgym process.

verifiers runs in ``.venv-verifiers`` (``make setup-verifiers``), so :mod:`.verifiers_env`
talks to :mod:`.verifiers_worker` over JSON lines on its pipes, through the worker client of
the WebArena-Verified scorer (:class:`~envs.webarena.verified_client.VerifiedScorer`: one
request at a time, a deadline per reply, a dead or hung worker killed and restarted on the next
request) pointed at another program. A missing environment raises :class:`VerifiersMissing`
(the command to run); a worker that dies, hangs or answers garbage raises
:class:`VerifiersWorkerError`, an infrastructure failure (the episode is aborted).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from agentgym import InfrastructureError
from agentgym.errors import MissingExtra

from ..webarena.verified_client import VerifiedScorer, VerifiedWorkerError

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-verifiers"
WORKER = Path(__file__).with_name("verifiers_worker.py")
SETUP = "make setup-verifiers"
WORKER_TIMEOUT_S = 300.0
"""Longest wait for one reply (the first one imports verifiers: 10-20 s on a busy machine)."""


class VerifiersMissing(MissingExtra):
    """``.venv-verifiers`` is not set up."""


class VerifiersWorkerError(InfrastructureError):
    """The worker died, hung or lost the episode's session."""


def worker_python() -> Path:
    """The interpreter of ``.venv-verifiers`` (``$AGENTGYM_VERIFIERS_PYTHON`` overrides it)."""
    override = os.environ.get("AGENTGYM_VERIFIERS_PYTHON")
    path = Path(override) if override else VENV / "bin" / "python"
    if not path.exists():
        raise VerifiersMissing(f"verifiers runs in its own environment ({path} is missing): "
                               f"run `{SETUP}`")
    return path


class VerifiersWorker(VerifiedScorer):
    """The JSON-lines worker client, started on :mod:`.verifiers_worker`; its stderr goes to
    a log whose tail explains a worker that died."""

    def __init__(self, python: Path | None = None) -> None:
        super().__init__(python, timeout_s=WORKER_TIMEOUT_S)
        self.log_path = Path(tempfile.mkdtemp(prefix="agentgym-verifiers-")) / "worker.log"

    def _start(self) -> subprocess.Popen[str]:
        python = self.python or worker_python()
        with open(self.log_path, "ab") as log:
            return subprocess.Popen([str(python), "-P", str(WORKER)],  # noqa: S603
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                    text=True, encoding="utf-8", bufsize=1, cwd=ROOT)

    @property
    def pid(self) -> int | None:
        """The live worker's process id (None before the first call)."""
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        """Whether a worker process is running (a request would not start one)."""
        return self._proc is not None and self._proc.poll() is None

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """One reply; a dead or hung worker raises :class:`VerifiersWorkerError`."""
        try:
            return self.call(message)
        except VerifiedWorkerError as e:
            tail = self.log_tail()
            why = str(e).replace("webarena-verified", "verifiers")
            raise VerifiersWorkerError(why + (f"; its log ends: {tail}" if tail else "")) from e

    def log_tail(self, chars: int = 600) -> str:
        """The end of the worker's stderr."""
        try:
            return " ".join(self.log_path.read_text(errors="replace")[-chars:].split())
        except OSError:
            return ""


_WORKER: VerifiersWorker | None = None
_WORKER_LOCK = threading.Lock()


def worker() -> VerifiersWorker:
    """The process-wide worker (it starts on the first request)."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is None:
            worker_python()  # fail early, with the command, when it is not set up
            _WORKER = VerifiersWorker()
        return _WORKER


def available() -> bool:
    """Whether ``.venv-verifiers`` is set up."""
    try:
        worker_python()
    except VerifiersMissing:
        return False
    return True


__all__ = ["VerifiersMissing", "VerifiersWorker", "VerifiersWorkerError", "available", "worker",
           "worker_python"]
