"""The GEM worker's client: one worker process per agentgym process.

GEM (PyPI ``gem-llm``) runs in ``.venv-gem`` (``scripts/setup_gem_venv.sh``), so
:mod:`.gem_env` talks to :mod:`.gem_worker` through :class:`~.venv_worker.VenvWorker`, as
:mod:`.verifiers_client` does. A missing environment raises :class:`GemMissing` (the command to
run); a worker that dies, hangs or answers garbage raises :class:`GemWorkerError`, an
infrastructure failure (the episode is aborted).
"""

from __future__ import annotations

from pathlib import Path

from agentgym import InfrastructureError
from agentgym.errors import MissingExtra

from .venv_worker import VenvWorker, WorkerVenv

WORKER_TIMEOUT_S = 120.0
"""Longest wait for one reply (the first one imports GEM and reasoning-gym: a few seconds)."""


class GemMissing(MissingExtra):
    """``.venv-gem`` is not set up."""


class GemWorkerError(InfrastructureError):
    """The worker died, hung or lost the episode's session."""


GEM = WorkerVenv(
    label="GEM", venv=".venv-gem", program=Path(__file__).with_name("gem_worker.py"),
    setup="bash scripts/setup_gem_venv.sh", python_env_var="AGENTGYM_GEM_PYTHON",
    timeout_s=WORKER_TIMEOUT_S, missing=GemMissing, error=GemWorkerError)
"""GEM's environment and its process-wide worker."""


def worker_python() -> Path:
    """The interpreter of ``.venv-gem`` (``$AGENTGYM_GEM_PYTHON`` overrides it)."""
    return GEM.python()


def worker() -> VenvWorker:
    """The process-wide worker (it starts on the first request)."""
    return GEM.worker()


def available() -> bool:
    """Whether ``.venv-gem`` is set up."""
    return GEM.available()
