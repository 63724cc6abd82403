"""Code sandboxes: Docker (warm container pool) and bubblewrap (embedded default) backends.

>>> from agentgym.sandboxes import open_sandbox
>>> with open_sandbox() as sandbox:                       # doctest: +SKIP
...     sandbox.run_python("print(6 * 7)").stdout
'42\\n'

Backends are looked up in the ``sandboxes`` plugin registry, so a plugin registering its own
(``register("remote", "pkg.mod:RemoteSandbox", available=...)``) is opened the same way.
Backend modules are imported only when opened: importing this package needs neither Docker nor
bwrap.
"""

from __future__ import annotations

import logging
from typing import Any

from agentgym.sandbox import (
    RunResult,
    RunStatus,
    Sandbox,
    SandboxClosed,
    SandboxError,
    SandboxLimits,
    SandboxRunError,
    SandboxTimeout,
    SandboxUnavailable,
)

from .fake import FakeCall, FakeSandbox

logger = logging.getLogger(__name__)

AUTO_ORDER = ("docker", "bubblewrap")
"""Backends ``open_sandbox("auto")`` tries, best isolation first."""


def shutdown_pools() -> None:
    """Stop every warm Docker pool (also run at exit once a pool exists); imports the pool
    module only when called, so registering the sandboxes imports no backend."""
    from ._docker_pool import shutdown_pools as stop

    stop()


def _registry() -> Any:
    from agentgym import get_registry

    return get_registry("sandboxes")


def check_backend(backend: str) -> str:
    """``backend`` when it is ``"auto"`` or a registered backend's name, else
    :class:`~agentgym.errors.NameNotFound` listing the registered ones (for envs to call at
    ``make``, so a misspelt name never reaches an episode)."""
    if backend != "auto":
        _registry().get(backend)
    return backend


def open_sandbox(backend: str = "auto", **kwargs: Any) -> Sandbox:
    """Open a sandbox of the named backend; keywords go to its constructor.

    ``"auto"`` picks Docker when an engine is reachable and the sandbox image exists, else
    bubblewrap. Raises :class:`SandboxUnavailable` naming what is missing for each backend.
    """
    registry = _registry()
    if backend != "auto":
        return registry.load(backend)(**kwargs)
    problems = []
    for name in AUTO_ORDER:
        if name not in registry:
            problems.append(f"{name}: not registered")
            continue
        try:
            sandbox = registry.load(name)(**kwargs)
        except SandboxUnavailable as e:
            problems.append(str(e))
            continue
        logger.debug("open_sandbox('auto') chose %s", name)
        return sandbox
    raise SandboxUnavailable("no sandbox backend can run here: " + "; ".join(problems))


def available_backends() -> list[str]:
    """Names of registered backends whose availability check passes here."""
    return [entry.name for entry in _registry() if entry.is_available()]


__all__ = [
    "AUTO_ORDER",
    "FakeCall",
    "FakeSandbox",
    "RunResult",
    "RunStatus",
    "Sandbox",
    "SandboxClosed",
    "SandboxError",
    "SandboxLimits",
    "SandboxRunError",
    "SandboxTimeout",
    "SandboxUnavailable",
    "available_backends",
    "check_backend",
    "open_sandbox",
    "shutdown_pools",
]
