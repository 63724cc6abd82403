"""The verifiers worker's client: one worker process per agentgym process.

verifiers runs in ``.venv-verifiers`` (``make setup-verifiers``), so :mod:`.verifiers_env`
talks to :mod:`.verifiers_worker` through :class:`~.venv_worker.VenvWorker`. A missing
environment raises :class:`VerifiersMissing` (the command to run); a worker that dies, hangs or
answers garbage raises :class:`VerifiersWorkerError`, an infrastructure failure (the episode is
aborted).
"""

from __future__ import annotations

from pathlib import Path

from agentgym import InfrastructureError
from agentgym.errors import MissingExtra

from .venv_worker import VenvWorker, WorkerVenv

WORKER_TIMEOUT_S = 300.0
"""Longest wait for one reply (the first one imports verifiers: 10-20 s on a busy machine)."""


class VerifiersMissing(MissingExtra):
    """``.venv-verifiers`` is not set up."""


class VerifiersWorkerError(InfrastructureError):
    """The worker died, hung or lost the episode's session."""


VERIFIERS = WorkerVenv(
    label="verifiers", venv=".venv-verifiers",
    program=Path(__file__).with_name("verifiers_worker.py"), setup="make setup-verifiers",
    python_env_var="AGENTGYM_VERIFIERS_PYTHON", timeout_s=WORKER_TIMEOUT_S,
    missing=VerifiersMissing, error=VerifiersWorkerError)
"""verifiers' environment and its process-wide worker."""


def worker_python() -> Path:
    """The interpreter of ``.venv-verifiers`` (``$AGENTGYM_VERIFIERS_PYTHON`` overrides it)."""
    return VERIFIERS.python()


def worker() -> VenvWorker:
    """The process-wide worker (it starts on the first request)."""
    return VERIFIERS.worker()


def available() -> bool:
    """Whether ``.venv-verifiers`` is set up."""
    return VERIFIERS.available()
