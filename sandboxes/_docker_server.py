"""A resident run server in each pooled container: one fork per run instead of a docker exec.

A ``docker exec`` costs tens of milliseconds in dockerd and containerd before the program even
starts. Instead, each pooled container's PID 1 is :data:`SERVER`, a small Python program that
listens on a unix socket in a host directory bind-mounted at :data:`MOUNT`. A run is one
connection: the host sends a header (argv, environment, limits, fetch paths), the input tar, and,
as ``SCM_RIGHTS``, the three pipe ends that become the program's stdin, stdout and stderr; the
server forks, and the child drops to uid 65534, unpacks the files into a fresh workdir, applies
the rlimits and runs the program. The host pumps the pipes itself (:func:`._pump.pump`), so
output never passes through the server.

A Python program (``python3 FILE.py ...``) runs in the forked child directly, without starting a
new interpreter: the child is already a clean Python, so the run skips ~15 ms of interpreter
start-up. It gets a fresh ``__main__`` module, ``sys.argv``, ``sys.path``, environment and
unbuffered stdio, exactly as ``python3 FILE.py`` would; anything else is ``exec``\\ ed.

Isolation is the same as with ``docker exec`` as uid 65534: the program runs as 65534 with no
capabilities, ``no-new-privileges``, the rlimits, and the container's cgroup (memory, pids,
CPU). The server itself runs as root in the container with only ``SETUID``, ``SETGID`` and
``KILL``: uid 65534 cannot signal or ptrace it (it is PID 1 and not dumpable), and the socket
lives in a root-only (0700) directory the program cannot enter. After each run the server kills
every process of uid 65534 and empties ``/work`` and ``/tmp`` (as uid 65534), off the run's
critical path.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from ._pump import CappedBuffer, pump

MOUNT = "/agentgym"
CLEANUP_GRACE_S = 30.0
"""How long past its deadline the host waits for the server's reply before giving up on it."""
SOCKET_NAME = "run.sock"
_LEN = struct.Struct(">I")

SERVER = (Path(__file__).parent / "_run_server.py").read_text(encoding="utf-8")
"""Source of the in-container server (:mod:`._run_server`), run as ``python3 -c SERVER``."""

@dataclass
class ServerOutput:
    """What one run through the server produced."""

    stdout: CappedBuffer
    stderr: CappedBuffer
    exit_code: int | None
    duration_s: float
    timed_out: bool
    oom_killed: bool | None
    fetched: bytes
    deadline_hit: bool


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise ConnectionError("the sandbox run server closed the connection")
        buf += chunk
    return bytes(buf)


def run_on_server(
    socket_path: str,
    argv: list[str],
    *,
    tar: bytes,
    stdin: bytes,
    env: dict[str, str],
    rlimits: dict[str, int],
    timeout_s: float,
    fetch: list[str],
    fetch_cap: int,
    cap: int,
    deadline: float,
) -> ServerOutput:
    """Run ``argv`` through the container's server; raise ``OSError`` if it cannot be reached.

    On the host ``deadline`` the connection is dropped and ``deadline_hit`` is set; the caller
    must then treat the container as unhealthy.
    """
    workdir = f"/work/run-{os.urandom(6).hex()}"
    header = json.dumps({
        "argv": argv, "env": env, "rlimits": rlimits, "timeout": timeout_s, "tar": len(tar),
        "fetch": fetch, "fetch_cap": fetch_cap, "workdir": workdir,
    }).encode()  # fmt: skip
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    child_ends = [in_r, out_w, err_w]
    stdin_owned = True
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        sock.connect(socket_path)
        socket.send_fds(sock, [_LEN.pack(len(header)) + header], child_ends)
        for fd in child_ends:
            os.close(fd)
        child_ends = []
        if tar:
            sock.sendall(tar)
        stdin_owned = False  # pump closes it
        got = pump(in_w, out_r, err_r, stdin, cap=cap, deadline=deadline)
        for fd in (out_r, err_r):  # stop reading: leftover writers get EPIPE and die sooner
            os.close(fd)
        out_r = err_r = -1
        # The server killed the program at its time limit; the reply proves the container is
        # fine even when killing a fork bomb's leftovers took the server a while.
        sock.settimeout(max(0.01, deadline - time.monotonic()) + CLEANUP_GRACE_S)
        try:
            length = _LEN.unpack(_recv_exact(sock, _LEN.size))[0]
            reply = json.loads(_recv_exact(sock, length))
            fetched = _recv_exact(sock, int(reply["fetch"])) if reply["fetch"] else b""
        except TimeoutError:
            return ServerOutput(got.stdout, got.stderr, None, 0.0, True, None, b"", True)
        return ServerOutput(
            got.stdout, got.stderr, int(reply["exit"]), float(reply["duration"]),
            bool(reply["timed_out"]), reply["oom"], fetched, False,
        )  # fmt: skip
    finally:
        sock.close()
        for fd in [*child_ends, *(fd for fd in (out_r, err_r) if fd >= 0),
                   *([in_w] if stdin_owned else [])]:  # fmt: skip
            with contextlib.suppress(OSError):
                os.close(fd)


def wait_for_socket(socket_path: str, timeout_s: float) -> bool:
    """Wait until the server listens at ``socket_path``; False when it did not in time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if os.path.exists(socket_path):
            return True
        time.sleep(0.005)
    return False
