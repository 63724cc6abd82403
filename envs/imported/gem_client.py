"""The GEM worker's client: one worker process per agentgym process.

GEM (PyPI ``gem-llm``) runs in ``.venv-gem`` (``scripts/setup_gem_venv.sh``), so
:mod:`.gem_env` talks to :mod:`.gem_worker` over JSON lines on its pipes, through the worker
client of the WebArena-Verified scorer (:class:`~envs.webarena.verified_client.VerifiedScorer`:
one request at a time, a deadline per reply, a dead or hung worker killed and restarted on the
next request) pointed at another program, as :mod:`.verifiers_client` does. A missing
environment raises :class:`GemMissing` (the command to run); a worker that dies, hangs or
answers garbage raises :class:`GemWorkerError`, an infrastructure failure (the episode is
aborted).
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
VENV = ROOT / ".venv-gem"
WORKER = Path(__file__).with_name("gem_worker.py")
SETUP = "bash scripts/setup_gem_venv.sh"
WORKER_TIMEOUT_S = 120.0
"""Longest wait for one reply (the first one imports GEM and reasoning-gym: a few seconds)."""


class GemMissing(MissingExtra):
    """``.venv-gem`` is not set up."""


class GemWorkerError(InfrastructureError):
    """The worker died, hung or lost the episode's session."""


def worker_python() -> Path:
    """The interpreter of ``.venv-gem`` (``$AGENTGYM_GEM_PYTHON`` overrides it)."""
    override = os.environ.get("AGENTGYM_GEM_PYTHON")
    path = Path(override) if override else VENV / "bin" / "python"
    if not path.exists():
        raise GemMissing(f"GEM runs in its own environment ({path} is missing): run `{SETUP}`")
    return path


class GemWorker(VerifiedScorer):
    """The JSON-lines worker client, started on :mod:`.gem_worker`; its stderr goes to a log
    whose tail explains a worker that died."""

    def __init__(self) -> None:
        super().__init__(None, timeout_s=WORKER_TIMEOUT_S)
        self.log_path = Path(tempfile.mkdtemp(prefix="agentgym-gem-")) / "worker.log"

    def _start(self) -> subprocess.Popen[str]:
        with open(self.log_path, "ab") as log:
            return subprocess.Popen([str(worker_python()), "-P", str(WORKER)],  # noqa: S603
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                    text=True, encoding="utf-8", bufsize=1, cwd=ROOT)

    @property
    def pid(self) -> int | None:
        """The live worker's process id (None before the first call)."""
        return self._proc.pid if self._proc is not None else None

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """One reply; a dead or hung worker raises :class:`GemWorkerError`."""
        try:
            return self.call(message)
        except VerifiedWorkerError as e:
            try:
                tail = " ".join(self.log_path.read_text(errors="replace")[-600:].split())
            except OSError:
                tail = ""
            why = str(e).replace("webarena-verified", "GEM")
            raise GemWorkerError(why + (f"; its log ends: {tail}" if tail else "")) from e


_WORKER: GemWorker | None = None
_WORKER_LOCK = threading.Lock()


def worker() -> GemWorker:
    """The process-wide worker (it starts on the first request)."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is None:
            worker_python()  # fail early, with the command, when it is not set up
            _WORKER = GemWorker()
        return _WORKER


def available() -> bool:
    """Whether ``.venv-gem`` is set up."""
    try:
        worker_python()
    except GemMissing:
        return False
    return True


__all__ = ["GemMissing", "GemWorker", "GemWorkerError", "available", "worker", "worker_python"]
