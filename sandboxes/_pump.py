"""Feed stdin to and read stdout/stderr from a child with byte caps and a deadline.

The child's output is read incrementally; bytes past the cap are read and dropped, so memory
stays bounded however much a program prints and the program never blocks on a full pipe.
"""

from __future__ import annotations

import errno
import os
import selectors
import time
from dataclasses import dataclass, field

CHUNK = 65536


@dataclass
class CappedBuffer:
    """Bytes up to ``cap``; counts what it had to drop."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def feed(self, chunk: bytes) -> None:
        """Keep what fits under the cap, count the rest as dropped."""
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    @property
    def truncated(self) -> bool:
        """Whether anything was dropped."""
        return self.dropped > 0

    def text(self) -> str:
        """The kept bytes decoded as UTF-8, invalid sequences replaced."""
        return self.data.decode("utf-8", errors="replace")


@dataclass
class PumpResult:
    """What :func:`pump` collected."""

    stdout: CappedBuffer
    stderr: CappedBuffer
    deadline_hit: bool


def pump(
    stdin_fd: int | None,
    stdout_fd: int,
    stderr_fd: int,
    data: bytes,
    *,
    cap: int,
    deadline: float,
) -> PumpResult:
    """Write ``data`` to ``stdin_fd`` (then close it) while reading both outputs until EOF.

    Stops early when ``time.monotonic()`` passes ``deadline``. All fds are made non-blocking;
    the caller closes ``stdout_fd`` and ``stderr_fd``. A child that exits without reading its
    stdin is fine: the write fails with EPIPE and is abandoned.
    """
    out, err = CappedBuffer(cap), CappedBuffer(cap)
    sinks = {stdout_fd: out, stderr_fd: err}
    view = memoryview(data)
    with selectors.DefaultSelector() as sel:
        for fd in sinks:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        if stdin_fd is not None:
            if view:
                os.set_blocking(stdin_fd, False)
                sel.register(stdin_fd, selectors.EVENT_WRITE)
            else:
                os.close(stdin_fd)
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                for key in list(sel.get_map().values()):
                    if key.fd == stdin_fd:
                        os.close(stdin_fd)
                    sel.unregister(key.fd)
                return PumpResult(out, err, deadline_hit=True)
            for key, _ in sel.select(timeout=remaining):
                if key.fd == stdin_fd:
                    try:
                        view = view[os.write(stdin_fd, view[:CHUNK]) :]
                    except BlockingIOError:
                        continue
                    except OSError as e:
                        if e.errno not in (errno.EPIPE, errno.EBADF):
                            raise
                        view = view[:0]
                    if not view:
                        sel.unregister(stdin_fd)
                        os.close(stdin_fd)
                    continue
                try:
                    chunk = os.read(key.fd, CHUNK)
                except BlockingIOError:
                    continue
                if chunk:
                    sinks[key.fd].feed(chunk)
                else:
                    sel.unregister(key.fd)
    return PumpResult(out, err, deadline_hit=False)
