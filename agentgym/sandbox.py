"""The sandbox interface: run untrusted code or a command with limits and get a :class:`RunResult`.

A :class:`Sandbox` runs one command at a time in an isolated, resource-limited place (a bubblewrap
namespace, a pooled Docker container, a remote service). Hostile code never makes :meth:`run`
raise: a fork bomb, a memory bomb or an endless loop comes back as a result whose ``status`` says
what happened. Only misuse (a closed sandbox, a file path that escapes the workdir) raises.

Workdir semantics, kept simple on purpose: every run starts in a fresh, empty working directory.
Files given to :meth:`Sandbox.run` exist for that run only; files given to :meth:`Sandbox.put_files`
belong to the sandbox session and are copied into the workdir of every later run. Whatever a run
writes is thrown away afterwards, except the paths named in ``fetch``, returned in
:attr:`RunResult.files`. :meth:`Sandbox.get_file` reads a session file back.

Errors (defined in :mod:`agentgym.errors`, re-exported here; all under ``AgentGymError``)::

    SandboxError
    ├── SandboxUnavailable      the backend cannot run here (binary, engine or image missing)
    ├── SandboxClosed           the sandbox was used after close()
    └── SandboxRunError         raised by RunResult.check() for a run that did not succeed
        └── SandboxTimeout      ... because it hit the time limit
"""

from __future__ import annotations

import asyncio
import base64
import enum
import logging
import posixpath
import signal
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .errors import (
    SandboxClosed,
    SandboxError,
    SandboxRunError,
    SandboxTimeout,
    SandboxUnavailable,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one run. Backends enforce all of them; see each field for how."""

    timeout_s: float = 10.0
    """Wall-clock limit; the whole process tree is killed when it passes."""
    memory_mb: int = 512
    """Address-space limit per process, and a total for the sandbox where cgroups allow."""
    cpus: float = 1.0
    """CPU share (Docker ``nano_cpus``; a cgroup CPU quota for bubblewrap when available)."""
    pids: int = 64
    """Most processes and threads alive at once."""
    output_bytes: int = 65536
    """Cap on stdout and on stderr, each; the rest is read and discarded."""
    file_size_mb: int = 16
    """Largest file a run may write (``RLIMIT_FSIZE``) and largest fetched file."""
    disk_mb: int = 64
    """Size of the tmpfs holding the workdir (and of the one holding /tmp)."""
    network: bool = False
    """Network access. Built-in backends refuse ``True``: they have no network at all."""

    def with_overrides(self, **changes: Any) -> SandboxLimits:
        """Return a copy with some fields changed."""
        return replace(self, **changes)


class RunStatus(enum.StrEnum):
    """How a run ended, most specific cause first."""

    OK = "ok"
    """Exited with code 0."""
    ERROR = "error"
    """Exited with a non-zero code or was killed by a signal."""
    TIMEOUT = "timeout"
    """Killed at the time limit (wall clock or CPU time)."""
    MEMORY = "memory"
    """Ran out of memory (killed by the OOM killer or failed to allocate)."""
    SANDBOX_ERROR = "sandbox_error"
    """The sandbox itself failed; the code's own outcome is unknown."""


@dataclass
class RunResult:
    """The outcome of one run, shaped like SandboxFusion's ``run_result``."""

    stdout: str = ""
    """Standard output, decoded as UTF-8 (invalid bytes replaced), at most ``output_bytes``."""
    stderr: str = ""
    """Standard error, same rules."""
    exit_code: int | None = None
    """Exit code; 128+N when killed by signal N; ``None`` on timeout or sandbox error."""
    duration_s: float = 0.0
    """Wall-clock time of the run, as seen by the host."""
    timed_out: bool = False
    """The run hit the time limit."""
    memory_killed: bool = False
    """The run ran out of memory."""
    output_truncated: bool = False
    """stdout or stderr was longer than ``output_bytes`` and was cut."""
    status: RunStatus = RunStatus.OK
    """Overall outcome."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Fetched files, by path relative to the workdir; missing paths are left out."""
    error: str = ""
    """What went wrong, for ``sandbox_error`` results and runs refused before starting."""

    @property
    def ok(self) -> bool:
        """True when the run exited with code 0."""
        return self.status is RunStatus.OK

    def summary(self) -> str:
        """A short, plain description of how the run ended, for a model to read."""
        if self.status is RunStatus.SANDBOX_ERROR:
            text = f"Sandbox error: {self.error or 'unknown failure'}"
        elif self.status is RunStatus.TIMEOUT:
            text = f"Timed out after {self.duration_s:.1f} s"
        elif self.status is RunStatus.MEMORY:
            text = "Ran out of memory"
        elif self.exit_code is None and self.error:
            text = self.error[:1].upper() + self.error[1:]
        elif self.exit_code is not None and self.exit_code > 128:
            text = f"Killed by {_signal_name(self.exit_code - 128)} (exit code {self.exit_code})"
        else:
            text = f"Exited with code {self.exit_code} in {self.duration_s:.2f} s"
        if self.output_truncated:
            text += "; output truncated"
        return text

    def check(self) -> RunResult:
        """Return ``self`` if the run succeeded, else raise :class:`SandboxRunError`."""
        if self.status is RunStatus.TIMEOUT:
            raise SandboxTimeout(self)
        if self.status is not RunStatus.OK:
            raise SandboxRunError(self)
        return self

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``status`` as its string, ``files`` base64-encoded."""
        data = asdict(self)
        data["status"] = self.status.value
        data["files"] = {k: base64.b64encode(v).decode("ascii") for k, v in self.files.items()}
        return data


def _not_encodable(error: UnicodeEncodeError) -> RunResult:
    """The result of a run refused because its text cannot be encoded as UTF-8."""
    bad = error.object[error.start : error.end]
    message = (
        f"not run: the input holds text that is not valid UTF-8 ({bad!r} at position "
        f"{error.start}); send plain UTF-8 text"
    )
    return RunResult(stderr=message + "\n", status=RunStatus.ERROR, error=message)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def check_relative(path: str) -> str:
    """Normalize a workdir-relative path; raise ``ValueError`` if it is absolute or escapes."""
    if not isinstance(path, str) or not path or "\0" in path:
        raise ValueError(f"invalid sandbox path {path!r}")
    norm = posixpath.normpath(path)
    if norm.startswith("/") or norm == ".." or norm.startswith("../") or norm == ".":
        raise ValueError(f"sandbox path {path!r} must be relative and stay inside the workdir")
    return norm


def normalize_files(files: dict[str, bytes | str]) -> dict[str, bytes]:
    """Check every path with :func:`check_relative` and encode ``str`` contents as UTF-8."""
    out: dict[str, bytes] = {}
    for path, content in files.items():
        if not isinstance(content, (bytes, str)):
            raise ValueError(f"content of {path!r} must be bytes or str")
        out[check_relative(path)] = content.encode() if isinstance(content, str) else content
    return out


class Sandbox(ABC):
    """A place to run untrusted commands. Subclasses implement :meth:`_run` and may extend close.

    Use it as a context manager (sync or async) so it is always closed. Runs may be issued from
    several threads at once (the async twins do): each run is independent, and the Docker
    backend takes one pooled container per concurrent run.
    """

    name: str = "base"
    """Backend name, as registered."""
    python: str = "python3"
    """Python interpreter used by :meth:`run_python`."""
    supports_network: bool = False
    """Whether ``SandboxLimits(network=True)`` can be honoured; the built-in backends cannot."""

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self._session_files: dict[str, bytes] = {}
        self._closed = False

    @abstractmethod
    def _run(
        self,
        command: list[str],
        stdin: bytes,
        files: dict[str, bytes],
        fetch: list[str],
        limits: SandboxLimits,
    ) -> RunResult:
        """Run ``command`` in a fresh workdir holding ``files``; backends never raise here."""

    def run(
        self,
        command: list[str],
        *,
        stdin: str | bytes | None = None,
        files: dict[str, bytes | str] | None = None,
        fetch: list[str] | None = None,
        limits: SandboxLimits | None = None,
    ) -> RunResult:
        """Run ``command`` (argv, looked up on the sandbox PATH) in a fresh workdir.

        ``files`` are written into the workdir (paths relative to it) on top of the session
        files; ``fetch`` names workdir paths to return in :attr:`RunResult.files`. Raises only
        for misuse (:class:`SandboxClosed`, ``ValueError`` for a bad path or empty command).
        """
        self._check_open()
        if not command or not all(isinstance(a, str) for a in command):
            raise ValueError("command must be a non-empty list of strings")
        limits = limits or self.limits
        if limits.network and not self.supports_network:
            raise ValueError(f"the {self.name} sandbox has no network; network=True is refused")
        try:
            merged = {**self._session_files, **normalize_files(files or {})}
            data = stdin.encode() if isinstance(stdin, str) else (stdin or b"")
        except UnicodeEncodeError as e:  # a lone surrogate in code or stdin: not run, no raise
            return _not_encodable(e)
        wanted = [check_relative(p) for p in (fetch or [])]
        try:
            return self._run(list(command), data, merged, wanted, limits)
        except Exception as e:  # a backend bug or a lost engine must not end an episode
            logger.exception("%s sandbox failed", self.name)
            return RunResult(status=RunStatus.SANDBOX_ERROR, error=f"{type(e).__name__}: {e}")

    def run_python(self, code: str, *, args: list[str] | None = None, **kwargs: Any) -> RunResult:
        """Write ``code`` to ``main.py`` in the workdir and run it; keywords as for :meth:`run`."""
        files = dict(kwargs.pop("files", None) or {})
        files["main.py"] = code
        return self.run([self.python, "main.py", *(args or [])], files=files, **kwargs)

    def put_files(self, files: dict[str, bytes | str]) -> None:
        """Add files to the session: every later run finds them in its workdir."""
        self._check_open()
        self._session_files.update(normalize_files(files))

    def clear_files(self) -> None:
        """Forget every session file."""
        self._session_files.clear()

    def get_file(self, path: str) -> bytes:
        """Return a session file's content; raise ``FileNotFoundError`` if none was put there."""
        key = check_relative(path)
        try:
            return self._session_files[key]
        except KeyError:
            raise FileNotFoundError(
                f"no session file {path!r}; run outputs come back through fetch="
            ) from None

    def close(self) -> None:
        """Release the sandbox's resources; later calls raise :class:`SandboxClosed`."""
        self._closed = True
        self._session_files.clear()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise SandboxClosed(f"the {self.name} sandbox is closed")

    async def arun(self, command: list[str], **kwargs: Any) -> RunResult:
        """Async twin of :meth:`run` (runs it in a worker thread)."""
        return await asyncio.to_thread(self.run, command, **kwargs)

    async def arun_python(self, code: str, **kwargs: Any) -> RunResult:
        """Async twin of :meth:`run_python`."""
        return await asyncio.to_thread(self.run_python, code, **kwargs)

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        await asyncio.to_thread(self.close)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> Sandbox:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


__all__ = [
    "RunResult",
    "RunStatus",
    "Sandbox",
    "SandboxClosed",
    "SandboxError",
    "SandboxLimits",
    "SandboxRunError",
    "SandboxTimeout",
    "SandboxUnavailable",
    "check_relative",
    "normalize_files",
]
