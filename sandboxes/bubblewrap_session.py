"""A persistent shell filesystem on the bubblewrap backend: the terminal family's Docker-less mode.

Every command still runs in a fresh bubblewrap sandbox (:mod:`.bubblewrap`: no network, no host
paths, uid 65534, seccomp, per-run cgroup, rlimits), so nothing the agent starts outlives its
command. What persists is the *filesystem* of a few root directories (``/app``, ``/root``,
``/tmp``...): each is a size-capped tmpfs in the sandbox, filled from a tar of the previous
state before the command and packed back into a tar after it. The host keeps that tar as bytes
and never unpacks it, so a hostile command can neither plant links on the host nor outgrow the
tmpfs sizes (a disk bomb fills its own tmpfs and stops there).

>>> shell = BubblewrapShell(roots=("app",))                          # doctest: +SKIP
>>> out = shell.exec("echo hi > /app/x; cat /app/x", state=b"", timeout_s=5)
>>> out.stdout, out.exit_code
('hi\\n', 0)
"""

from __future__ import annotations

import io
import os
import shlex
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from agentgym.sandbox import RunResult, RunStatus, SandboxLimits

from ._masks import _inside, mask_args
from ._script import KILL_LEFTOVERS, READY, SETUP_EXIT, SETUP_FAILED, prlimit_args
from .bubblewrap import BubblewrapSandbox, _bound_roots

STATE = "state.tar"
"""Name of the state archive inside the run's ``/work`` (and in :attr:`RunResult.files`)."""
TAR_SLACK_S = 15.0
"""Time the wrapper gets beyond the command's deadline to unpack and pack the state."""


@dataclass
class ShellOutput:
    """One command's outcome and the filesystem state after it."""

    stdout: str
    stderr: str
    exit_code: int | None
    """None when the command was killed at its deadline or the sandbox failed."""
    timed_out: bool
    truncated: bool
    state: bytes | None
    """The new state tar; None when the run could not save it (the old state stands)."""
    error: str = ""
    """A sandbox failure (not the command's), empty otherwise."""
    memory_killed: bool = False


class BubblewrapShell(BubblewrapSandbox):
    """Runs shell commands over a persistent tar-backed filesystem (see the module docstring).

    ``roots``: top-level directories mounted as tmpfs and persisted between commands;
    ``scratch``: top-level directories mounted (empty) but never persisted (``tests``);
    ``env``: extra environment variables (a task's ``ENV``); ``workdir``: where commands start;
    ``hide``: host folders shown empty should a bound system path hold them (a task folder with
    its tests and solution kept under ``/usr``), as agentgym's own package folders are.
    """

    name = "bubblewrap-shell"

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        roots: tuple[str, ...] = ("app", "root", "tmp", "logs"),
        scratch: tuple[str, ...] = ("tests",),
        env: dict[str, str] | None = None,
        workdir: str = "/app",
        use_cgroup: bool | None = None,
        hide: tuple[str, ...] = (),
    ) -> None:
        super().__init__(limits, use_cgroup=use_cgroup)
        bound = _bound_roots(self._extra_binds)
        # a folder holding a whole bound path (a task root of "/usr") is never masked: it would
        # take the system with it
        hide = tuple(h for h in hide if not any(
            _inside(os.path.realpath(b), os.path.realpath(h)) for b in bound))
        if hide:
            self._masks = self._masks + mask_args(bound, hide)
        for name in (*roots, *scratch):
            if not name or "/" in name or name in (".", "..", "usr", "proc", "dev", "work"):
                raise ValueError(f"bad root directory {name!r}")
        self.roots = tuple(dict.fromkeys(roots))
        self.scratch = tuple(n for n in dict.fromkeys(scratch) if n not in self.roots)
        self.env = {"HOME": "/root", **(env or {})}
        self.workdir = workdir

    def disk_budget_mb(self, limits: SandboxLimits) -> int:
        """The RAM all the tmpfs mounts may hold (the roots, the scratch dirs, ``/work`` and
        ``/tmp``): a run's cgroup gets it on top of ``memory_mb``, so a full disk cannot leave
        the sandbox's own processes (or a state's unpacking) without memory."""
        return (len(self.roots) + len(self.scratch) + 2) * limits.disk_mb

    def _args(self, limits: SandboxLimits) -> list[str]:
        args = super()._args(limits)
        at = args.index("--remount-ro")
        disk = str(limits.disk_mb * 1024 * 1024)
        mounts: list[str] = []
        for name in (*self.roots, *self.scratch):
            if name != "tmp":  # /tmp is a tmpfs of the base already
                mounts += ["--size", disk, "--tmpfs", f"/{name}"]
        args[at:at] = mounts
        for key, value in self.env.items():
            args += ["--setenv", key, value]
        return args

    def _script(
        self, limits: SandboxLimits, tar_bytes: int, fetch: list[str], side: int,
        address_space: bool,
    ) -> str:
        q = shlex.quote
        fail = f"{{ echo {q(SETUP_FAILED)} >&2; exit {SETUP_EXIT}; }}"
        limit = " ".join(q(a) for a in prlimit_args(limits, nproc=True,
                                                     address_space=address_space))
        names = " ".join(q(n) for n in fetch)
        lines = [
            "umask 022",
            f"cd /work || {fail}",
            f"head -c {tar_bytes} | tar -x -o -f - || {fail}" if tar_bytes else ":",
            # $4 = the state's size: it follows on stdin, unpacked straight into the roots
            f'if [ "$4" -gt 0 ]; then head -c "$4" | tar -x -p -f - -C / 2>/dev/null || {fail}; fi',
            f"printf {READY} >&{side}",
            # $1 = the command's deadline, $2 = its start directory, $3 = the command. The
            # saved stderr gets a free descriptor ({err}): a fixed one (9) may be the side fd.
            "exec {err}>&2 2>/dev/null",
            "(echo 1000 >/proc/self/oom_score_adj; cd \"$2\" 2>/dev/null || cd /; "
            f'exec timeout -s KILL "$1" prlimit {limit} -- /bin/bash -c "$3" '
            f'2>&$err {{err}}>&- {side}>&- </dev/null)',
            "rc=$?; exec 2>&$err {err}>&-",
            KILL_LEFTOVERS,
            f"cd / && tar -c -f /work/{STATE} -- {names} 2>/dev/null "
            f"&& cd /work && tar -c -f - ./{STATE} >&{side}",
            "exit $rc",
        ]
        return "\n".join(lines)

    def exec(
        self,
        command: str,
        *,
        state: bytes,
        timeout_s: float,
        files: dict[str, bytes] | None = None,
        limits: SandboxLimits | None = None,
        fetch: tuple[str, ...] | None = None,
    ) -> ShellOutput:
        """Run ``command`` with ``bash -c`` over ``state`` (a tar from a previous run, or
        ``b""``); ``files`` are written on top, by absolute path under a root or scratch dir.
        ``fetch``: the roots whose files come back as the new state (default: all of them;
        the verifier asks for ``logs`` only).
        """
        limits = (limits or self.limits).with_overrides(timeout_s=timeout_s + TAR_SLACK_S)
        if self._use_cgroup:  # the cgroup, not RLIMIT_AS, caps memory: the disk's RAM on top
            limits = limits.with_overrides(
                memory_mb=limits.memory_mb + self.disk_budget_mb(limits))
        if files:
            state = add_files(state, files)
        argv = [f"{timeout_s:g}", self.workdir, command, str(len(state))]
        result = self.run(argv, stdin=state,
                          fetch=list(self.roots if fetch is None else fetch), limits=limits)
        return _output(result, timeout_s)


def _output(result: RunResult, timeout_s: float) -> ShellOutput:
    new_state = result.files.get(STATE)
    if result.status is RunStatus.SANDBOX_ERROR:
        return ShellOutput(result.stdout, result.stderr, None, False, result.output_truncated,
                           None, error=result.error or "the sandbox failed")
    code = result.exit_code
    timed_out = result.timed_out or code == 137 and result.duration_s >= timeout_s
    return ShellOutput(
        stdout=result.stdout, stderr=result.stderr, exit_code=None if timed_out else code,
        timed_out=timed_out, truncated=result.output_truncated, state=new_state,
        memory_killed=result.memory_killed,
    )


def add_files(state: bytes, files: dict[str, bytes], mode: int = 0o644) -> bytes:
    """``state`` (a tar, or ``b""``) with ``files`` (absolute paths) added on top; a file that
    starts with ``#!`` is made executable."""
    names = {p.lstrip("/") for p in files}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as out:
        _copy_entries(state, out, names.__contains__)
        for path, content in sorted(files.items()):
            name = path.lstrip("/")
            if not name or ".." in name.split("/"):
                raise ValueError(f"bad path {path!r}")
            info = tarfile.TarInfo(name)
            info.size = len(content)
            info.mtime = int(time.time())  # epoch 0 upsets gzip and make
            info.mode = 0o755 if content.startswith(b"#!") else mode
            out.addfile(info, io.BytesIO(content))
    return buf.getvalue()


def drop_paths(state: bytes, prefixes: tuple[str, ...]) -> bytes:
    """``state`` without the entries under ``prefixes`` (relative, e.g. ``logs/verifier``);
    raises ``tarfile.TarError`` (or ``EOFError``, ``OSError``) for a damaged archive."""
    if not state:
        return state
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as out:
        _copy_entries(state, out, lambda name: any(
            name == p or name.startswith(p + "/") for p in prefixes))
    return buf.getvalue()


def _copy_entries(state: bytes, out: tarfile.TarFile, drop: Callable[[str], bool]) -> None:
    """Copy the entries of ``state`` (``b""``: none) into ``out``, but those whose name
    (without ``./`` and outer slashes) ``drop`` accepts."""
    if not state:
        return
    with tarfile.open(fileobj=io.BytesIO(state), mode="r:") as old:
        for member in old:
            if not drop(_norm(member.name)):
                out.addfile(member, old.extractfile(member) if member.isreg() else None)


def _norm(name: str) -> str:
    name = name[2:] if name.startswith("./") else name
    return name.strip("/")


def read_state_file(state: bytes, path: str, max_bytes: int = 1 << 20) -> bytes | None:
    """The content of the regular file ``path`` (absolute) in ``state``, or None (missing, not
    a regular file, over ``max_bytes``, or a damaged archive)."""
    want = path.lstrip("/")
    try:
        with tarfile.open(fileobj=io.BytesIO(state), mode="r:") as tar:
            found = None
            for member in tar:
                if _norm(member.name) == want:
                    found = member  # the last entry of a name wins, as tar -x would
            if found is None or not found.isreg() or found.size > max_bytes:
                return None
            handle = tar.extractfile(found)
            return handle.read() if handle is not None else None
    except (tarfile.TarError, EOFError, OSError):
        return None


__all__ = ["BubblewrapShell", "ShellOutput", "add_files", "drop_paths", "read_state_file"]
