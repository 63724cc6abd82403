"""The run server that is PID 1 of every pooled Docker sandbox container (see ._docker_server).

It runs inside the container with the image's ``python3`` and the standard library only, as
``python3 -c SOURCE SOCKET_DIR WIPE_SCRIPT``; the host never imports it.
"""

import atexit
import contextlib
import ctypes
import io
import json
import os
import resource
import select
import shutil
import signal
import socket
import struct
import sys
import tarfile
import threading
import time
import traceback
import types
from typing import Any

LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE = 4
UID = 65534
LEN = struct.Struct(">I")
BASE_PATH = list(sys.path[1:])
LIMITS = {
    "fsize": resource.RLIMIT_FSIZE,
    "cpu": resource.RLIMIT_CPU,
    "nofile": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
    "as": resource.RLIMIT_AS,
    "nproc": resource.RLIMIT_NPROC,
}
STATE: dict[str, str] = {"wipe": "true"}


STATUSES: dict[int, int] = {}
"""Exit statuses of the children reaped by :func:`reap`, for :func:`wait_child`."""


def reap() -> None:
    """Reap every exited child (orphans become ours as PID 1), keeping their statuses."""
    try:
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid <= 0:
                return
            STATUSES[pid] = status
    except ChildProcessError:
        pass


def wait_child(pid: int) -> int:
    """The exit status of our child ``pid``, whether or not :func:`reap` got it first."""
    if pid not in STATUSES:
        try:
            STATUSES[pid] = os.waitpid(pid, 0)[1]
        except ChildProcessError:
            STATUSES[pid] = 0
    status = STATUSES.pop(pid)
    STATUSES.clear()  # statuses of orphans are of no interest
    return status


def kill_all() -> None:
    """SIGKILL every process but this one (PID 1) until none is left, reaping them."""
    for _ in range(2000):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            break
        reap()
        time.sleep(0.0005)
    reap()


def oom_kills() -> int | None:
    """The container cgroup's OOM-kill count (cgroup v2 or v1), or None if unreadable."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            continue
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill":
                return int(value)
    return None


def recv_exact(conn: socket.socket, n: int) -> bytes:
    """Exactly ``n`` bytes from ``conn``; EOFError if it closes first."""
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError("short read")
        buf += chunk
    return bytes(buf)


def drop_privileges() -> None:
    """Become uid/gid 65534 with no groups (and no capabilities left), like the exec path."""
    os.setgroups([])
    os.setgid(UID)
    os.setuid(UID)
    LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # an ordinary dumpable process, as after exec


def run_python(path: str, argv: list[str], env: dict[str, str]) -> None:
    """Run ``python3 PATH ARGV...`` in this (forked, clean) interpreter, then exit."""
    os.environ.clear()
    os.environ.update(env)
    sys.argv = [path] + argv
    sys.path[:] = [os.getcwd()] + BASE_PATH
    streams = {
        "stdin": io.TextIOWrapper(
            io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8"
        ),
        "stdout": io.TextIOWrapper(  # unbuffered, as with PYTHONUNBUFFERED=1
            io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True
        ),
        "stderr": io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False),
            encoding="utf-8",
            errors="backslashreplace",
            write_through=True,
        ),
    }
    for name, stream in streams.items():
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    main = types.ModuleType("__main__")
    main.__file__ = os.path.join(os.getcwd(), path)
    setattr(main, "__builtins__", __builtins__)  # noqa: B010
    sys.modules["__main__"] = main
    code = 0
    try:
        with open(path, "rb") as f:
            source = f.read()
        exec(compile(source, path, "exec", dont_inherit=True), main.__dict__)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, int) and e.code is not None:
            print(e.code, file=sys.stderr)
    except BaseException as e:
        tb = e.__traceback__.tb_next if e.__traceback__ is not None else None
        traceback.print_exception(type(e), e, tb)
        code = 1
    try:
        getattr(threading, "_shutdown")()  # noqa: B009  (waits for non-daemon threads)
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code & 0xFF)


def child(header: dict[str, Any], tar: bytes, fds: list[int]) -> None:
    """In the forked child: drop privileges, unpack, limit, and run the program; never returns."""
    try:
        os.setsid()
        drop_privileges()
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
        os.mkdir(header["workdir"], 0o755)
        os.chdir(header["workdir"])
        if tar:
            with tarfile.open(fileobj=io.BytesIO(tar), mode="r:") as archive:
                archive.extractall(".")
        for name, value in header["rlimits"].items():
            resource.setrlimit(LIMITS[name], (value, value))
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 65536)
    except BaseException as e:
        message = (f"agentgym-sandbox: setup failed: {e}\n").encode()
        os.write(fds[2] if len(fds) == 3 else 2, message)
        os._exit(125)
    argv, env = header["argv"], header["env"]
    if (
        len(argv) >= 2
        and argv[0] in ("python3", "/usr/bin/python3")
        and argv[1].endswith(".py")
        and not argv[1].startswith("-")
        and os.path.isfile(argv[1])
    ):
        run_python(argv[1], argv[2:], env)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    try:
        os.execvpe(argv[0], argv, env)
    except OSError as e:
        os.write(2, (f"{argv[0]}: {e.strerror}\n").encode())
        os._exit(127 if isinstance(e, FileNotFoundError) else 126)


def fetch(workdir: str, paths: list[str], cap: int) -> bytes:
    """A tar of ``paths`` in ``workdir``, written by a child running as uid 65534."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            drop_privileges()
            os.chdir(workdir)
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w") as archive:
                for path in paths:
                    if os.path.lexists(path):
                        archive.add(path, "./" + path, recursive=True)
            data = memoryview(buf.getvalue()[:cap])
            while data:
                data = data[os.write(w, data) :]
        finally:
            os._exit(0)
    os.close(w)
    out = bytearray()
    with os.fdopen(r, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            out += chunk
    wait_child(pid)
    return bytes(out)


def quick_wipe() -> bool:
    """Empty /work and /tmp in-process when nothing resists; True when they are empty."""
    try:
        for top in ("/work", "/tmp"):
            for entry in os.scandir(top):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
        return True
    except OSError:
        return False


def wipe() -> None:
    """Empty /work and /tmp; as uid 65534 in a child when root may not (no DAC_OVERRIDE)."""
    if quick_wipe():
        return
    pid = os.fork()
    if pid == 0:
        try:
            drop_privileges()
            os.closerange(3, 65536)
            os.execv("/bin/sh", ["sh", "-c", STATE["wipe"]])
        finally:
            os._exit(1)
    pfd = os.pidfd_open(pid)
    ready = select.select([pfd], [], [], 10.0)[0]
    os.close(pfd)
    if not ready:
        kill_all()
    reap()


def exit_code(status: int) -> int:
    """The shell's view of a wait status: the exit code, or 128 + N when killed by signal N."""
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def serve(conn: socket.socket) -> None:
    """Serve one run on ``conn``: receive, fork, wait (to the time limit), reply, clean up."""
    fds: list[int] = []
    try:
        msg, fds, _, _ = socket.recv_fds(conn, LEN.size, 3)
        if len(msg) < LEN.size:
            msg += recv_exact(conn, LEN.size - len(msg))
        header = json.loads(recv_exact(conn, LEN.unpack(msg)[0]))
        tar = recv_exact(conn, header["tar"]) if header["tar"] else b""
        if len(fds) != 3:
            raise ValueError("expected 3 descriptors")
        kill_all()
        before = oom_kills()
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            conn.close()
            child(header, tar, fds)
        for fd in fds:
            os.close(fd)
        fds = []
        pfd = os.pidfd_open(pid)
        timed_out = not select.select([pfd], [], [], header["timeout"])[0]
        os.close(pfd)
        if timed_out:
            kill_all()
        status = wait_child(pid)
        duration = time.monotonic() - start
        kill_all()
        after = oom_kills()
        data = (
            fetch(header["workdir"], header["fetch"], header["fetch_cap"])
            if header["fetch"]
            else b""
        )
        reply = json.dumps(
            {
                "exit": exit_code(status),
                "duration": duration,
                "timed_out": timed_out,
                "fetch": len(data),
                "oom": None if before is None or after is None else after > before,
            }
        ).encode()
        conn.sendall(LEN.pack(len(reply)) + reply + data)
    finally:
        for fd in fds:
            os.close(fd)
        conn.close()
        kill_all()
        wipe()


def main() -> None:
    """Listen on ``SOCKET_DIR/run.sock`` and serve runs from the host, one at a time."""
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # uid 65534 cannot ptrace us or read our memory
    STATE["wipe"] = sys.argv[2]
    path = os.path.join(sys.argv[1], "run.sock")
    with contextlib.suppress(OSError):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    os.chmod(path + ".tmp", 0o600)
    listener.listen(8)
    os.rename(path + ".tmp", path)
    while True:
        ready = select.select([listener], [], [], 30.0)[0]
        reap()
        if not ready:
            continue
        conn, _ = listener.accept()
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, gid = struct.unpack("3i", creds)
        if pid != 0:  # only a process outside this container's pid namespace (the host)
            conn.close()
            continue
        try:
            serve(conn)
        except Exception:
            pass


if __name__ == "__main__":
    main()
