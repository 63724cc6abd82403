"""A peer package in its own environment, driven by one worker process per agentgym process.

verifiers and GEM pin versions that clash with the project's ``.venv``, so each lives in its own
environment (``.venv-verifiers``, ``.venv-gem``) and its importer talks to a worker program run
by that environment's interpreter over JSON lines on the worker's pipes. The pipe protocol is
the WebArena-Verified scorer's client
(:class:`~envs.webarena.verified_client.VerifiedScorer`: one request at a time, a deadline per
reply, a dead or hung worker killed and restarted on the next request); :class:`VenvWorker`
points it at another program and keeps the worker's stderr in a log whose tail explains a
death. :class:`WorkerVenv` describes one such environment and holds its process-wide worker.
A missing environment raises the venv's ``missing`` error (with the command that sets it up);
a worker that dies, hangs or answers garbage raises its ``error``, an
:class:`~agentgym.InfrastructureError` (the episode is aborted).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym import InfrastructureError
from agentgym.errors import MissingExtra

from ..webarena.verified_client import VerifiedScorer, VerifiedWorkerError

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class WorkerVenv:
    """One peer's environment: where it is, how to set it up, its worker program and errors."""

    label: str                              # the peer's name in messages: "verifiers", "GEM"
    venv: str                               # folder under the project root: ".venv-gem"
    program: Path                           # the worker program it runs
    setup: str                              # the command that sets the environment up
    python_env_var: str                     # overrides the interpreter's path
    timeout_s: float                        # the longest wait for one reply
    missing: type[MissingExtra]             # raised when the environment is not set up
    error: type[InfrastructureError]        # raised when the worker dies, hangs or misanswers
    _worker: VenvWorker | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def python(self) -> Path:
        """The environment's interpreter (``$<python_env_var>`` overrides it)."""
        override = os.environ.get(self.python_env_var)
        path = Path(override) if override else ROOT / self.venv / "bin" / "python"
        if not path.exists():
            raise self.missing(f"{self.label} runs in its own environment ({path} is missing): "
                               f"run `{self.setup}`")
        return path

    def available(self) -> bool:
        """Whether the environment is set up."""
        try:
            self.python()
        except self.missing:
            return False
        return True

    def worker(self) -> VenvWorker:
        """The process-wide worker (its process starts on the first request)."""
        with self._lock:
            if self._worker is None:
                self.python()  # fail early, with the command, when it is not set up
                self._worker = VenvWorker(self)
            return self._worker

    def current(self) -> VenvWorker | None:
        """The worker if one was made (it may have died since), else ``None``."""
        return self._worker


class VenvWorker(VerifiedScorer):
    """The JSON-lines worker client started on ``venv.program``; its stderr goes to a log."""

    def __init__(self, venv: WorkerVenv) -> None:
        super().__init__(None, timeout_s=venv.timeout_s)
        self.venv = venv
        prefix = f"agentgym-{venv.label.lower()}-"
        self.log_path = Path(tempfile.mkdtemp(prefix=prefix)) / "worker.log"

    def _start(self) -> subprocess.Popen[str]:
        with open(self.log_path, "ab") as log:
            return subprocess.Popen([str(self.venv.python()), "-P", str(self.venv.program)],  # noqa: S603
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
        """One reply; a dead or hung worker raises the environment's ``error``."""
        try:
            return self.call(message)
        except VerifiedWorkerError as e:
            tail = self.log_tail()
            why = str(e).replace("webarena-verified", self.venv.label)
            raise self.venv.error(why + (f"; its log ends: {tail}" if tail else "")) from e

    def log_tail(self, chars: int = 600) -> str:
        """The end of the worker's stderr."""
        try:
            return " ".join(self.log_path.read_text(errors="replace")[-chars:].split())
        except OSError:
            return ""


__all__ = ["VenvWorker", "WorkerVenv"]
