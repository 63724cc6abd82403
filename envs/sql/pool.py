"""A small bounded pool of connections shared by the threads that use one executor.

Connections are opened lazily, up to ``max_size``; a thread borrows one for a single query and
gives it back. When all are busy, callers wait. This keeps the open-and-harden cost (about ten
times a light query) off the hot path while bounding file descriptors, page caches and server
connections, however many env threads step at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from .errors import SQLError

__all__ = ["ConnectionPool"]

C = TypeVar("C")


class ConnectionPool(Generic[C]):
    """Lazily opened, bounded, thread-safe pool of connection-like objects."""

    def __init__(
        self, open_fn: Callable[[], C], close_fn: Callable[[C], None], max_size: int = 8
    ) -> None:
        """``open_fn`` makes a connection, ``close_fn`` closes one; at most ``max_size`` live."""
        if max_size < 1:
            raise ValueError(f"max_size must be at least 1, not {max_size}")
        self._open = open_fn
        self._close = close_fn
        self.max_size = max_size
        self._idle: list[C] = []
        self._live = 0
        self._closed = False
        self._cond = threading.Condition()

    def acquire(self) -> C:
        """Borrow an idle connection, open a new one, or wait for one to come back."""
        with self._cond:
            while True:
                if self._closed:
                    raise SQLError("executor is closed")
                if self._idle:
                    return self._idle.pop()
                if self._live < self.max_size:
                    self._live += 1
                    break
                self._cond.wait()
        try:
            return self._open()
        except BaseException:
            with self._cond:
                self._live -= 1
                self._cond.notify()
            raise

    def release(self, conn: C, *, broken: bool = False) -> None:
        """Give ``conn`` back; a broken one (or any, once the pool is closed) is closed."""
        with self._cond:
            keep = not broken and not self._closed
            if keep:
                self._idle.append(conn)
            else:
                self._live -= 1
            self._cond.notify()
        if not keep:
            self._close(conn)

    @contextmanager
    def lease(self) -> Iterator[C]:
        """``with pool.lease() as conn:`` borrow and return a connection."""
        conn = self.acquire()
        try:
            yield conn
        finally:
            self.release(conn)

    @property
    def size(self) -> int:
        """Connections currently open (idle or borrowed)."""
        return self._live

    def discard_idle(self) -> int:
        """Close every idle connection (after one turned out dead); return how many."""
        with self._cond:
            idle, self._idle = self._idle, []
            self._live -= len(idle)
            self._cond.notify_all()
        for conn in idle:
            self._close(conn)
        return len(idle)

    def close(self) -> None:
        """Close idle connections now and borrowed ones when they come back."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._live -= len(idle)
            self._cond.notify_all()
        for conn in idle:
            self._close(conn)
