"""The in-sandbox wrapper script shared by all backends, and how its outcome is classified.

Every run executes ``sh -c SCRIPT sh COMMAND...`` inside the sandbox. The script:

1. optionally cleans up what an earlier run left behind (pooled containers): kills every process
   of the sandbox user but itself and PID 1, and empties ``/work`` and ``/tmp``;
2. creates a fresh workdir and unpacks the input tar from the first ``N`` bytes of stdin
   (``head -c`` reads exactly ``N`` bytes, so the rest of stdin is the program's);
3. runs the command under ``timeout -s KILL`` and ``prlimit`` (address space, file size, CPU
   time, open files, core dumps, and processes where the backend asks), with ``oom_score_adj``
   raised so the kernel's OOM killer picks the program before the sandbox's own processes;
4. optionally writes a tar of the fetched paths to a side file descriptor;
5. optionally kills leftovers and removes the workdir, and exits with the program's status.

Exit status 125 with :data:`SETUP_FAILED` on stderr means the sandbox itself failed. With a side
descriptor, the script first writes :data:`READY` to it once set up, so a backend can tell a run
that never started (no marker) from a program's own failure.
"""

from __future__ import annotations

import math
import shlex
import signal

from agentgym.sandbox import RunResult, RunStatus, SandboxLimits

SETUP_FAILED = "agentgym-sandbox: setup failed"
SETUP_EXIT = 125
READY = "R"
_SIGKILL_EXIT = 128 + signal.SIGKILL
_SIGXCPU_EXIT = 128 + signal.SIGXCPU

# Kill every process this uid may signal except PID 1 and this shell; loop until none are left
# (kill -1 fails with ESRCH) so a forking program cannot outrun one sweep. Bounded, because
# zombies still count until PID 1 reaps them.
KILL_LEFTOVERS = "n=0; while kill -9 -1 2>/dev/null && [ $n -lt 2000 ]; do n=$((n+1)); done"
WIPE = "rm -rf /work/* /work/.[!.]* /work/..?* /tmp/* /tmp/.[!.]* /tmp/..?* 2>/dev/null"


AS_BACKSTOP_FACTOR = 8
AS_BACKSTOP_MIN_MB = 4096


def rlimits(limits: SandboxLimits, *, nproc: bool, address_space: bool) -> dict[str, int]:
    """The per-process limits enforcing ``limits``, by ``prlimit`` option name.

    ``address_space=True`` caps ``RLIMIT_AS`` at ``memory_mb``: the memory limit where no cgroup
    caps memory. Where a cgroup does (``False``), the cgroup is the memory limit and
    ``RLIMIT_AS`` is only a generous backstop (8 x ``memory_mb``, at least 4 GB) that makes an
    absurd allocation fail at once with ``MemoryError``: an address-space limit also counts the
    untouched stacks and malloc arenas that threads reserve (512 MB allows about 14 Python
    threads), while the cgroup counts memory really used.
    """
    if address_space:
        as_bytes = limits.memory_mb * 1024 * 1024
    else:
        backstop_mb = max(AS_BACKSTOP_FACTOR * limits.memory_mb, AS_BACKSTOP_MIN_MB)
        as_bytes = backstop_mb * 1024 * 1024
    out = {
        "fsize": limits.file_size_mb * 1024 * 1024,
        "cpu": math.ceil(limits.timeout_s * max(1.0, limits.cpus)) + 1,
        "nofile": 256,
        "core": 0,
        "as": as_bytes,
    }
    if nproc:
        out["nproc"] = limits.pids
    return out


def prlimit_args(
    limits: SandboxLimits, *, nproc: bool, address_space: bool = True
) -> list[str]:
    """The ``prlimit`` options enforcing ``limits`` on the program (see :func:`rlimits`)."""
    return [
        f"--{name}={value}"
        for name, value in rlimits(limits, nproc=nproc, address_space=address_space).items()
    ]


def build_script(
    limits: SandboxLimits,
    *,
    workdir: str,
    tar_bytes: int,
    fetch: list[str],
    fetch_fd: int | None,
    nproc: bool,
    cleanup_before: bool,
    cleanup_after: bool,
    address_space: bool = True,
) -> str:
    """Return the wrapper script; the program's argv follows it as ``"$@"``.

    ``fetch_fd`` receives :data:`READY` then the tar of ``fetch`` paths; with ``None`` the
    workdir is kept for a separate fetch step (and ``cleanup_after`` should be false).
    """
    q = shlex.quote
    fail = f"{{ echo {q(SETUP_FAILED)} >&2; exit {SETUP_EXIT}; }}"
    lines = ["umask 022"]
    if cleanup_before:
        lines += [KILL_LEFTOVERS, WIPE]
    lines.append(f"mkdir -p {q(workdir)} && cd {q(workdir)} || {fail}")
    if tar_bytes:
        lines.append(f"head -c {tar_bytes} | tar -x -o -f - || {fail}")
    if fetch_fd is not None:
        lines.append(f"printf {READY} >&{fetch_fd}")
    limit = " ".join(q(a) for a in prlimit_args(limits, nproc=nproc, address_space=address_space))
    close_fd = f" {fetch_fd}>&-" if fetch_fd is not None else ""
    # The shell's own stderr goes to /dev/null while the program runs (dash reports "Killed"
    # there for a signalled child); the program gets the real stderr through a saved fd (9, or
    # 8 when the fetch side channel is itself fd 9: saving over it would lose the side channel),
    # and a raised oom_score_adj that the shell itself does not have.
    saved = 8 if fetch_fd == 9 else 9
    lines.append(f"exec {saved}>&2 2>/dev/null")
    lines.append(
        "(echo 1000 >/proc/self/oom_score_adj; "
        f'exec timeout -s KILL {limits.timeout_s:g} prlimit {limit} -- "$@" '
        f"2>&{saved} {saved}>&-{close_fd})"
    )
    lines.append(f"rc=$?; exec 2>&{saved} {saved}>&-")
    if fetch and fetch_fd is not None:
        names = " ".join(q("./" + p) for p in fetch)
        lines.append(f"tar -c -f - -- {names} 2>/dev/null >&{fetch_fd}")
    if cleanup_after:
        lines += [KILL_LEFTOVERS, f"cd / && rm -rf {q(workdir)}"]
    lines.append("exit $rc")
    return "\n".join(lines)


def fetch_script(workdir: str, fetch: list[str]) -> str:
    """Script for a separate fetch step: tar the paths to stdout, then clean up."""
    q = shlex.quote
    names = " ".join(q("./" + p) for p in fetch)
    return "\n".join(
        [
            f"cd {q(workdir)} 2>/dev/null && tar -c -f - -- {names} 2>/dev/null",
            KILL_LEFTOVERS,
            f"cd / && rm -rf {q(workdir)}",
            "exit 0",
        ]
    )


def _memory_error(stderr: str) -> bool:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    return bool(lines) and lines[-1].startswith("MemoryError")


def classify(
    *,
    exit_code: int | None,
    duration_s: float,
    limits: SandboxLimits,
    stdout: str,
    stderr: str,
    output_truncated: bool,
    files: dict[str, bytes],
    host_killed: bool = False,
    oom_killed: bool | None = None,
) -> RunResult:
    """Build a :class:`RunResult` from what the wrapper reported.

    ``host_killed`` means the host's backstop deadline fired; ``oom_killed`` is the kernel's
    word when the backend can read it (a cgroup counter), ``None`` to infer it from a SIGKILL
    that was not the time limit.
    """
    timed_out = (
        host_killed
        or exit_code == _SIGXCPU_EXIT
        or (exit_code == _SIGKILL_EXIT and duration_s >= limits.timeout_s)
    )
    if oom_killed is None:
        oom_killed = exit_code == _SIGKILL_EXIT and not timed_out
    # The kernel's OOM count outranks the time limit: a run whose processes were OOM-killed and
    # that then hung is reported as out of memory, the more useful thing to tell a model.
    memory = oom_killed or (not timed_out and exit_code != 0 and _memory_error(stderr))
    if exit_code == SETUP_EXIT and SETUP_FAILED in stderr:
        status, error = RunStatus.SANDBOX_ERROR, stderr.strip()[-500:]
    elif memory:
        status, error = RunStatus.MEMORY, ""
    elif timed_out:
        status, error = RunStatus.TIMEOUT, ""
    else:
        status, error = (RunStatus.OK if exit_code == 0 else RunStatus.ERROR), ""
    return RunResult(
        stdout=stdout,
        stderr=stderr,
        exit_code=None if timed_out or status is RunStatus.SANDBOX_ERROR else exit_code,
        duration_s=duration_s,
        timed_out=timed_out,
        memory_killed=memory,
        output_truncated=output_truncated,
        status=status,
        files=files,
        error=error,
    )
