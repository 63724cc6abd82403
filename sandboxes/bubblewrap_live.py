"""A live shell: one long-lived bubblewrap sandbox per episode, a command per request.

:class:`~.bubblewrap_session.BubblewrapShell` starts a fresh sandbox for every command and
moves the episode's files in and out as a tar. A :class:`LiveShell` starts the same sandbox
(same mounts, limits, seccomp, cgroup, masks) *once*, loads the starting state into its tmpfs
roots, and keeps it: each command is sent to its PID 1 (:mod:`._live_init`), which runs it as a
fresh ``bash -c`` under ``prlimit`` with the per-command deadline, then kills every process the
command left. The files stay in the sandbox's tmpfs mounts between commands; a tar of them is
made only on demand (:meth:`LiveShell.snapshot`: a fork, the verifier).

The agent cannot end the sandbox: PID 1 of a PID namespace ignores the signals of its own
processes and is non-dumpable. Should it die anyway (killed from the host, out of memory), every
later call raises :class:`SandboxGone`: an infrastructure failure.

>>> live = LiveShell(BubblewrapShell(roots=("app",)), state=b"")    # doctest: +SKIP
>>> live.exec("echo hi > /app/x; cat /app/x", timeout_s=5).stdout
'hi\\n'
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from ._cgroup import create_run_cgroup
from ._script import prlimit_args
from ._seccomp import filter_fd
from .bubblewrap import NOBODY
from .bubblewrap_session import BubblewrapShell, ShellOutput

INIT = (Path(__file__).with_name("_live_init.py")).read_text()
SLACK_S = 10.0
"""Seconds the host waits beyond a command's deadline for PID 1's answer."""
START_S = 20.0
WRAP = ('echo 1000 >/proc/self/oom_score_adj 2>/dev/null; cd "$1" 2>/dev/null || cd /; '
        'exec prlimit "${@:3}" -- /bin/bash -c "$2"')
"""Runs the command (``$2``) in ``$1`` under the rlimits (``$3...``), first in line for the
OOM killer."""


class SandboxGone(RuntimeError):
    """The live sandbox died or stopped answering (not the agent's doing)."""


class LiveShell:
    """A started sandbox of ``shell``'s design holding ``state``; see the module docstring."""

    nproc = True
    """Whether commands get ``RLIMIT_NPROC`` (per uid: right in a user namespace of its own,
    wrong in a container sharing the host's uid 65534 with other containers)."""

    def _bind(self, shell: Any, owner: object) -> None:
        """The fields every backend's live shell starts with."""
        self.shell = shell
        self.owner = owner
        """Who closes it (a forked env's copy shares the reference but not the ownership)."""
        self.limits = shell.limits
        self._snap: bytes | None = None
        self._oom = 0
        self._dead = ""
        self._buf = bytearray()

    def __init__(self, shell: BubblewrapShell, state: bytes, owner: object = None) -> None:
        self._bind(shell, owner)
        # The tmpfs mounts (the roots, the scratch dirs, /work) live in RAM, charged to this
        # cgroup: they get a budget of their own on top of the processes' memory_mb, so that an
        # agent filling its disk cannot leave PID 1 without memory (a dead sandbox = an abort).
        budget = self.limits.with_overrides(
            memory_mb=self.limits.memory_mb + shell.disk_budget_mb(self.limits))
        self._cgroup = create_run_cgroup(budget) if shell._use_cgroup else None
        self._errlog = tempfile.TemporaryFile()
        args = shell._args(self.limits)
        args.insert(1, "--as-pid-1")
        keep: list[int] = []
        seccomp = filter_fd()
        if seccomp is not None:
            args += ["--seccomp", str(seccomp)]
            keep.append(seccomp)
        info_r = info_w = block_r = block_w = -1
        if self._cgroup is not None:
            info_r, info_w = os.pipe()
            block_r, block_w = os.pipe()
            args += ["--info-fd", str(info_w), "--block-fd", str(block_r)]
            keep += [info_w, block_r]
        args += ["--", shell.python, "-I", "-S", "-c", INIT]
        drop = shell._as_root
        try:
            self.proc = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errlog,
                pass_fds=keep, start_new_session=True, env={"PATH": "/usr/bin:/bin"},
                user=NOBODY if drop else None, group=NOBODY if drop else None,
                extra_groups=[] if drop else None,
            )  # fmt: skip
        except OSError as e:
            self._close_fds(info_r, block_w)
            self._release()
            raise SandboxGone(f"cannot start bwrap: {e}") from None
        finally:
            self._close_fds(info_w, block_r)
        assert self.proc.stdout is not None
        self._out = self.proc.stdout.fileno()
        if self._cgroup is not None:
            shell._enter_cgroup(self._cgroup, info_r, block_w, time.monotonic() + START_S)
        self._started(state)

    def _started(self, state: bytes) -> None:
        """Wait for PID 1's greeting, then load the starting files (every backend)."""
        self._answer(START_S)
        if state:
            head, _ = self._request({"op": "load", "n": len(state)}, state, START_S + 30)
            if not head.get("ok"):
                self.close()
                raise SandboxGone(f"could not load the state: {head.get('error', '')[-300:]}")

    @staticmethod
    def _close_fds(*fds: int) -> None:
        for fd in fds:
            if fd >= 0:
                os.close(fd)

    # -- protocol ------------------------------------------------------------------------------

    def _request(self, head: dict[str, Any], payload: bytes, wait_s: float,
                 ) -> tuple[dict[str, Any], bytes]:
        if self._dead:
            raise SandboxGone(self._dead)
        try:
            self._send(json.dumps(head).encode() + b"\n" + payload)
        except OSError:
            self._fail("the sandbox is gone")
        answer = self._answer(wait_s)
        size = int(answer.get("out", 0)) + int(answer.get("err", 0)) + int(answer.get("n", 0))
        return answer, self._read(size, wait_s)

    def _answer(self, wait_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + wait_s
        while b"\n" not in self._buf:
            self._fill(deadline)
        at = self._buf.index(b"\n") + 1
        line, self._buf = bytes(self._buf[:at]), self._buf[at:]
        try:
            head = json.loads(line)
        except ValueError:
            head = None
        if not isinstance(head, dict):
            self._fail(f"garbled answer from the sandbox: {line[:200]!r}")
        return head  # type: ignore[return-value]

    def _read(self, size: int, wait_s: float) -> bytes:
        deadline = time.monotonic() + wait_s
        while len(self._buf) < size:
            self._fill(deadline)
        data, self._buf = bytes(self._buf[:size]), self._buf[size:]
        return data

    def _fill(self, deadline: float) -> None:
        chunk = self._recv(deadline)
        if chunk is None:
            self._fail("the sandbox stopped answering")
        elif not chunk:
            self._fail("the sandbox died")
        else:
            self._buf += chunk

    def _send(self, data: bytes) -> None:
        """Write ``data`` to PID 1's stdin (a subclass: another transport)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _recv(self, deadline: float) -> bytes | None:
        """Some of PID 1's stdout; ``b""`` at its end, None at ``deadline``."""
        ready, _, _ = select.select([self._out], [], [], max(0.0, deadline - time.monotonic()))
        return os.read(self._out, 1 << 20) if ready else None

    def _fail(self, why: str) -> None:
        self._errlog.seek(0)
        err = self._errlog.read()[-300:].decode(errors="replace").strip()
        self._dead = why + (f" ({err})" if err else "")
        self.close()
        raise SandboxGone(self._dead)

    # -- API -----------------------------------------------------------------------------------

    def exec(self, command: str, *, timeout_s: float, workdir: str | None = None) -> ShellOutput:
        """Run ``command`` with ``bash -c`` in ``workdir`` (default: the shell's) under a
        ``timeout_s`` deadline; every process it started is gone when this returns."""
        self._snap = None
        limits = self.limits.with_overrides(timeout_s=timeout_s)
        address_space = self._cgroup is None
        argv = ["/bin/bash", "-c", WRAP, "sandbox", workdir or self.shell.workdir, command,
                *prlimit_args(limits, nproc=self.nproc, address_space=address_space)]
        head, data = self._request({"op": "run", "argv": argv, "timeout": timeout_s,
                                    "cap": self.limits.output_bytes}, b"", timeout_s + SLACK_S)
        out, err = data[: head["out"]], data[head["out"]:]
        rc = int(head["rc"])
        rc = 128 - rc if rc < 0 else rc
        oom = self._cgroup.oom_kills() if self._cgroup is not None else 0
        memory_killed, self._oom = oom > self._oom, oom
        timed_out = bool(head["timed_out"])
        return ShellOutput(
            stdout=out.decode(errors="replace"), stderr=err.decode(errors="replace"),
            exit_code=None if timed_out else rc, timed_out=timed_out,
            truncated=bool(head["trunc"]), state=b"", memory_killed=memory_killed,
        )

    @property
    def max_snapshot_bytes(self) -> int:
        """The largest tar :meth:`snapshot` returns: every root full, plus room for headers."""
        return 2 * (len(self.shell.roots) * self.limits.disk_mb + 8) * 1024 * 1024

    def snapshot(self) -> bytes | None:
        """A tar of the roots as they are now (cached until the next command); None when it is
        over :attr:`max_snapshot_bytes` (a flood of empty files)."""
        if self._snap is None:
            names = [n for n in self.shell.roots]
            argv = ["tar", "-c", "-f", "-", "-C", "/", "--", *names]
            self._request({"op": "snap", "argv": argv, "max": self.max_snapshot_bytes}, b"",
                          120.0)
            deadline_s, parts = 120.0, []
            while size := int.from_bytes(self._read(4, deadline_s), "big"):
                parts.append(self._read(size, deadline_s))
            if self._answer(deadline_s).get("over"):
                return None
            self._snap = b"".join(parts)
        return self._snap

    @property
    def alive(self) -> bool:
        """Whether the sandbox still runs."""
        return not self._dead and self.proc.poll() is None

    def __del__(self) -> None:
        # a forked env dropped without close() must not leave its sandbox and cgroup running
        try:
            self.close()
        except Exception:  # at interpreter exit the modules close() needs may be gone
            pass

    def close(self) -> None:
        """Kill the sandbox and everything in it (idempotent)."""
        self._dead = self._dead or "closed"
        proc = getattr(self, "proc", None)
        if proc is not None and proc.returncode is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
        self._release()

    def _release(self) -> None:
        if self._cgroup is not None:
            self._cgroup.destroy()
            self._cgroup = None
        self._errlog.close()


__all__ = ["LiveShell", "SandboxGone"]
