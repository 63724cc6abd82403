"""One ``docker exec`` with stdin, capped stdout/stderr and a deadline, over the raw socket.

The Docker API multiplexes a non-TTY exec's output into frames (an 8-byte header: stream id,
three zero bytes, big-endian length). :func:`exec_run` writes stdin while it reads frames, so a
program that prints before reading its input cannot deadlock, and drops bytes past the cap.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import struct
import time
from dataclasses import dataclass
from typing import Any

from ._pump import CHUNK, CappedBuffer

_HEADER = struct.Struct(">BxxxL")


@dataclass
class ExecOutput:
    """What one exec produced."""

    stdout: CappedBuffer
    stderr: CappedBuffer
    exit_code: int | None
    deadline_hit: bool


def _raw_socket(handle: Any) -> socket.socket:
    sock = getattr(handle, "_sock", handle)
    if not isinstance(sock, socket.socket):
        raise TypeError(f"unsupported Docker connection socket {type(handle).__name__}")
    return sock


def exec_run(
    api: Any,
    container_id: str,
    argv: list[str],
    *,
    data: bytes,
    cap: int,
    deadline: float,
    user: str,
    environment: dict[str, str],
    workdir: str = "/",
) -> ExecOutput:
    """Run ``argv`` in the container, feeding ``data`` on stdin, until it ends or ``deadline``.

    On the deadline the connection is dropped and ``exit_code`` is ``None``; the caller must
    kill what is left in the container. Docker API errors propagate.
    """
    exec_id = api.exec_create(
        container_id, argv, stdin=True, stdout=True, stderr=True, tty=False,
        user=user, environment=environment, workdir=workdir,
    )["Id"]  # fmt: skip
    handle = api.exec_start(exec_id, socket=True)
    sock = _raw_socket(handle)
    out, err = CappedBuffer(cap), CappedBuffer(cap)
    sinks = {1: out, 2: err}
    hit = _pump_socket(sock, data, sinks, deadline)
    with contextlib.suppress(OSError):
        sock.close()
    with contextlib.suppress(OSError):
        handle.close()
    if hit:
        return ExecOutput(out, err, None, True)
    exit_code = None
    for _ in range(100):  # the exit code lands a moment after the stream closes
        info = api.exec_inspect(exec_id)
        if not info.get("Running") and info.get("ExitCode") is not None:
            exit_code = int(info["ExitCode"])
            break
        time.sleep(0.01)
    return ExecOutput(out, err, exit_code, False)


def _pump_socket(
    sock: socket.socket, data: bytes, sinks: dict[int, CappedBuffer], deadline: float
) -> bool:
    """Write ``data`` then half-close, demultiplex frames into ``sinks``; True on deadline."""
    sock.setblocking(False)
    view = memoryview(data)
    pending = b""
    writing = True
    if not view:
        sock.shutdown(socket.SHUT_WR)
        writing = False
    with selectors.DefaultSelector() as sel:
        sel.register(sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if writing else 0))
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            for _, mask in sel.select(timeout=remaining):
                if mask & selectors.EVENT_WRITE and writing:
                    try:
                        view = view[sock.send(view[:CHUNK]) :]
                    except BlockingIOError:
                        pass
                    except OSError:
                        view = view[:0]  # the program stopped reading stdin
                    if not view:
                        writing = False
                        with contextlib.suppress(OSError):
                            sock.shutdown(socket.SHUT_WR)
                        sel.modify(sock, selectors.EVENT_READ)
                if mask & selectors.EVENT_READ:
                    try:
                        chunk = sock.recv(CHUNK)
                    except BlockingIOError:
                        continue
                    except OSError:
                        chunk = b""
                    if not chunk:
                        return False
                    pending = _demux(pending + chunk, sinks)


def _demux(buf: bytes, sinks: dict[int, CappedBuffer]) -> bytes:
    """Feed every complete frame in ``buf`` to its sink; return the incomplete tail."""
    pos = 0
    while len(buf) - pos >= _HEADER.size:
        stream, size = _HEADER.unpack_from(buf, pos)
        end = pos + _HEADER.size + size
        if end > len(buf):
            break
        sink = sinks.get(stream)
        if sink is not None:
            sink.feed(buf[pos + _HEADER.size : end])
        pos = end
    return buf[pos:]
