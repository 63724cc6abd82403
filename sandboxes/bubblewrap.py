"""The bubblewrap backend: each run in fresh Linux namespaces, no daemon, about 40 ms a run.

Isolation of one run:

- ``bwrap --unshare-all`` (user, pid, net, ipc, uts, cgroup namespaces): no network at all, the
  host's processes invisible, ``--disable-userns`` so the program cannot nest namespaces;
- a read-only view of ``/usr`` (and the ``/bin``, ``/lib*`` links), a few files of ``/etc``,
  private ``/proc`` and ``/dev``, size-capped tmpfs ``/work`` (the workdir) and ``/tmp``;
  nothing else of the host (no ``/root``, ``/home``, ``/etc/shadow``), and an empty environment;
- agentgym's own folders, wherever a bind would expose them (a system-wide install under
  ``/usr``), under an empty tmpfs (:mod:`._masks`): no task data, reference or hidden test;
- as root, bwrap itself runs as uid/gid 65534 (so ``RLIMIT_NPROC`` binds: the kernel exempts
  uid 0), and each run gets its own cgroup capping total memory, pids and CPU;
- a seccomp denylist (:mod:`._seccomp`: ptrace, mount, namespaces, keyrings, BPF...);
- ``prlimit`` rlimits and ``timeout -s KILL`` inside (see :mod:`._script`), plus a host-side
  deadline that kills bwrap, whose ``--die-with-parent`` takes the whole namespace down.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from agentgym.bwrap import MERGED_USR_TOPS, system_binds
from agentgym.sandbox import RunResult, RunStatus, Sandbox, SandboxLimits, SandboxUnavailable

from ._cgroup import RunCgroup, create_run_cgroup, reap_stale
from ._files import pack_files, unpack_files
from ._masks import mask_args
from ._pump import pump
from ._script import READY, build_script, classify
from ._seccomp import filter_fd

logger = logging.getLogger(__name__)

NOBODY = 65534
GRACE_S = 3.0
ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "USER": "sandbox",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
}
_ETC = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime", "/etc/ssl/openssl.cnf")


def _bound_roots(extra_binds: list[str]) -> list[str]:
    """The host paths :func:`_root_args` and ``extra_binds`` mount (for :func:`mask_args`)."""
    roots = ["/usr", *(t for t in MERGED_USR_TOPS if Path(t).is_dir() and not Path(t).is_symlink())]
    return roots + [extra_binds[i + 1] for i, a in enumerate(extra_binds) if a == "--ro-bind"]


def _root_args() -> list[str]:
    """Read-only system binds: /usr plus the merged-usr links (or dirs) and a few /etc files."""
    return system_binds(_ETC)


@functools.cache
def _bwrap_works(bwrap: str) -> str:
    """Run a trivial sandbox once; return ``""`` if it works, else bwrap's complaint."""
    as_root = os.geteuid() == 0
    cmd = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", *_root_args()]
    try:
        done = subprocess.run(
            [*cmd, "--", "/bin/true"], capture_output=True, timeout=10, check=False,
            user=NOBODY if as_root else None, group=NOBODY if as_root else None,
            extra_groups=[] if as_root else None,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as e:
        return str(e)
    return "" if done.returncode == 0 else done.stderr.decode(errors="replace").strip()


def bubblewrap_available() -> bool:
    """Whether ``bwrap`` is installed and can create namespaces here."""
    bwrap = shutil.which("bwrap")
    return bool(bwrap) and not _bwrap_works(bwrap)


def find_python() -> tuple[str, list[str]]:
    """The interpreter for :meth:`run_python` and the extra binds it needs.

    Debian's ``/usr/bin/python3`` when present (covered by the ``/usr`` bind); otherwise this
    process's base interpreter (a pyenv or custom build), bound read-only at the same path. As
    root the sandbox runs as uid 65534, which must be able to reach that path (``/root`` is
    usually closed to it).
    """
    if Path("/usr/bin/python3").exists():
        return "/usr/bin/python3", []
    base = Path(sys.base_prefix).resolve()
    exe = base / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not exe.exists():
        raise SandboxUnavailable("bubblewrap backend: no python3 (apt install python3)")
    return str(exe), ["--ro-bind", str(base), str(base)]


class BubblewrapSandbox(Sandbox):
    """Runs each command in a fresh bubblewrap namespace sandbox (see the module docstring).

    ``use_cgroup``: ``None`` uses per-run cgroups where this process may create them.
    """

    name = "bubblewrap"

    def __init__(
        self, limits: SandboxLimits | None = None, *, use_cgroup: bool | None = None
    ) -> None:
        super().__init__(limits)
        bwrap = shutil.which("bwrap")
        if not bwrap:
            raise SandboxUnavailable("bubblewrap backend: no 'bwrap' (apt install bubblewrap)")
        problem = _bwrap_works(bwrap)
        if problem:
            raise SandboxUnavailable(f"bwrap cannot create a sandbox here: {problem}")
        self.python, self._extra_binds = find_python()
        self._bwrap = bwrap
        self._masks = mask_args(_bound_roots(self._extra_binds))
        self._as_root = os.geteuid() == 0
        self._use_cgroup = self._as_root if use_cgroup is None else use_cgroup
        if self._use_cgroup:
            reap_stale()

    def _args(self, limits: SandboxLimits) -> list[str]:
        disk = str(limits.disk_mb * 1024 * 1024)
        args = [self._bwrap, "--unshare-all", "--unshare-user", "--disable-userns"]
        args += ["--die-with-parent", "--new-session", "--uid", str(NOBODY), "--gid", str(NOBODY)]
        args += ["--hostname", "sandbox", *_root_args(), *self._extra_binds, *self._masks]
        args += ["--proc", "/proc", "--dev", "/dev"]
        args += ["--size", disk, "--tmpfs", "/tmp", "--size", disk, "--tmpfs", "/work"]
        args += ["--remount-ro", "/"]
        args += ["--chdir", "/work", "--clearenv"]
        for key, value in ENV.items():
            args += ["--setenv", key, value]
        return args

    def _run(
        self,
        command: list[str],
        stdin: bytes,
        files: dict[str, bytes],
        fetch: list[str],
        limits: SandboxLimits,
    ) -> RunResult:
        tar = pack_files(files)
        side = os.memfd_create("agentgym-sandbox-side")
        cgroup = create_run_cgroup(limits) if self._use_cgroup else None
        try:
            return self._run_in(command, tar + stdin, len(tar), fetch, limits, side, cgroup)
        finally:
            os.close(side)
            if cgroup is not None:
                cgroup.destroy()

    def _run_in(
        self,
        command: list[str],
        data: bytes,
        tar_bytes: int,
        fetch: list[str],
        limits: SandboxLimits,
        side: int,
        cgroup: RunCgroup | None,
    ) -> RunResult:
        script = self._script(limits, tar_bytes, fetch, side, cgroup is None)
        args = self._args(limits)
        keep = [side]
        seccomp = filter_fd()
        if seccomp is not None:
            args += ["--seccomp", str(seccomp)]
            keep.append(seccomp)
        info_r = info_w = block_r = block_w = -1
        if cgroup is not None:
            info_r, info_w = os.pipe()
            block_r, block_w = os.pipe()
            args += ["--info-fd", str(info_w), "--block-fd", str(block_r)]
            keep += [info_w, block_r]
        # bash, not dash: the side fd may be >= 10, which dash cannot redirect.
        args += ["--", "/bin/bash", "-c", script, "sandbox", *command]
        drop = self._as_root
        # Every pipe end is a plain fd owned here and closed exactly once: runs happen on
        # several threads, and a double close would close another run's reused fd number.
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        child_ends = [in_r, out_w, err_w, info_w, block_r, -1 if seccomp is None else seccomp]
        start = time.monotonic()
        deadline = start + limits.timeout_s + GRACE_S
        try:
            proc = subprocess.Popen(
                args, stdin=in_r, stdout=out_w, stderr=err_w,
                pass_fds=keep, start_new_session=True, env={"PATH": ENV["PATH"]},
                user=NOBODY if drop else None, group=NOBODY if drop else None,
                extra_groups=[] if drop else None,
            )  # fmt: skip
        except OSError as e:
            for fd in (in_w, out_r, err_r, info_r, block_w):
                if fd >= 0:
                    os.close(fd)
            return RunResult(status=RunStatus.SANDBOX_ERROR, error=f"cannot start bwrap: {e}")
        finally:
            for fd in child_ends:
                if fd >= 0:
                    os.close(fd)
        try:
            if cgroup is not None:
                self._enter_cgroup(cgroup, info_r, block_w, deadline)
            got = pump(in_w, out_r, err_r, data, cap=limits.output_bytes, deadline=deadline)
            if got.deadline_hit:
                self._kill(proc, cgroup)
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                got.deadline_hit = True
                self._kill(proc, cgroup)
                proc.wait()
        finally:
            os.close(out_r)
            os.close(err_r)
        duration = time.monotonic() - start
        rc = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        side_data = os.pread(side, limits.disk_mb * 1024 * 1024 + 1_048_576, 0)
        if not side_data.startswith(READY.encode()) and not got.deadline_hit:
            error = got.stderr.text().strip() or f"bwrap exited with {rc}"
            return RunResult(status=RunStatus.SANDBOX_ERROR, error=error[-500:],
                             duration_s=duration, stderr=got.stderr.text())  # fmt: skip
        cap = limits.file_size_mb * 1024 * 1024
        files = unpack_files(side_data[1:], max_file_bytes=cap,
                             max_total_bytes=limits.disk_mb * 1024 * 1024)  # fmt: skip
        return classify(
            exit_code=rc, duration_s=duration, limits=limits, stdout=got.stdout.text(),
            stderr=got.stderr.text(), output_truncated=got.stdout.truncated or got.stderr.truncated,
            files=files, host_killed=got.deadline_hit,
            oom_killed=bool(cgroup and cgroup.oom_kills()),
        )  # fmt: skip

    def _script(
        self, limits: SandboxLimits, tar_bytes: int, fetch: list[str], side: int,
        address_space: bool,
    ) -> str:
        """The in-sandbox wrapper (:mod:`._script`); a subclass (``bubblewrap_session``) may
        write its own around the same side-descriptor protocol."""
        return build_script(
            limits, workdir="/work", tar_bytes=tar_bytes, fetch=fetch, fetch_fd=side,
            nproc=True, cleanup_before=False, cleanup_after=False,
            address_space=address_space,  # a run cgroup caps memory itself (threads work)
        )  # fmt: skip

    @staticmethod
    def _enter_cgroup(cgroup: RunCgroup, info_r: int, block_w: int, deadline: float) -> None:
        """Move bwrap's sandbox child into the run cgroup before it starts the program."""
        raw = b""
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([info_r], [], [], max(0.0, deadline - time.monotonic()))
                chunk = os.read(info_r, 4096) if ready else b""
                if not chunk:
                    break
                raw += chunk
                try:
                    cgroup.add(int(json.loads(raw)["child-pid"]))
                    break
                except (ValueError, KeyError):
                    continue
        except OSError as e:
            logger.warning("could not move the sandbox into its cgroup: %s", e)
        finally:
            os.close(info_r)
            try:
                os.write(block_w, b"x")
            except OSError:
                pass  # bwrap already gone; the run reports it
            os.close(block_w)

    @staticmethod
    def _kill(proc: subprocess.Popen[bytes], cgroup: RunCgroup | None) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if cgroup is not None:
            for pid in cgroup.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
