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
    stdin_fd: int,
    stdout_fd: int,
    stderr_fd: int,
    data: bytes,
    *,
    cap: int,
    deadline: float,
) -> PumpResult:
    """Write ``data`` to ``stdin_fd`` while reading both outputs until EOF or ``deadline``.

    Takes ownership of ``stdin_fd`` and closes it exactly once (when ``data`` is written, the
    child stops reading, or on return); the caller closes ``stdout_fd`` and ``stderr_fd``. A
    child that exits without reading its stdin is fine: the write fails with EPIPE.
    """
    out, err = CappedBuffer(cap), CappedBuffer(cap)
    sinks = {stdout_fd: out, stderr_fd: err}
    view = memoryview(data)
    stdin_open = True

    def close_stdin() -> None:
        nonlocal stdin_open
        if stdin_open:
            stdin_open = False
            os.close(stdin_fd)

    try:
        with selectors.DefaultSelector() as sel:
            for fd in sinks:
                os.set_blocking(fd, False)
                sel.register(fd, selectors.EVENT_READ)
            if view:
                os.set_blocking(stdin_fd, False)
                sel.register(stdin_fd, selectors.EVENT_WRITE)
            else:
                close_stdin()
            while sel.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return PumpResult(out, err, deadline_hit=True)
                for key, _ in sel.select(timeout=remaining):
                    if key.fd == stdin_fd:
                        view = _write_some(stdin_fd, view)
                        if not view:
                            sel.unregister(stdin_fd)
                            close_stdin()
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
    finally:
        close_stdin()


def _write_some(fd: int, view: memoryview) -> memoryview:
    """Write what the pipe takes; an empty view once done or the reader is gone."""
    try:
        return view[os.write(fd, view[:CHUNK]) :]
    except BlockingIOError:
        return view
    except OSError as e:
        if e.errno != errno.EPIPE:
            raise
        return view[:0]
