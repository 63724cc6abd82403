"""A pool of env workers: made once, reset and reused, replaced when one breaks.

Workers are created lazily up to ``size``. An episode :meth:`~EnvPool.acquire`\\ s a worker and
gives it back with :meth:`~EnvPool.release`; a worker whose env raised or hung is
:meth:`~EnvPool.discard`\\ ed instead: it is closed in the background (a hung close is abandoned)
and a fresh one is made on the next acquire. Every wait here has a timeout.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from ..errors import PoolTimeout
from .workers import EnvWorker, WorkerFactory

logger = logging.getLogger(__name__)


@dataclass
class PoolStats:
    """Counters of a pool's life."""

    created: int = 0
    discarded: int = 0
    reused: int = 0


class EnvPool:
    """Up to ``size`` env workers shared by concurrent episodes."""

    def __init__(
        self,
        factory: WorkerFactory,
        size: int,
        *,
        create_timeout_s: float = 300.0,
        close_timeout_s: float = 10.0,
    ) -> None:
        if size < 1:
            raise ValueError(f"pool size must be >= 1, got {size}")
        self.factory = factory
        self.size = size
        self.create_timeout_s = create_timeout_s
        self.close_timeout_s = close_timeout_s
        self.stats = PoolStats()
        self._free: asyncio.Queue[EnvWorker] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._live = 0
        self._all: set[EnvWorker] = set()
        self._closing: set[asyncio.Future[None]] = set()

    def _queue(self) -> asyncio.Queue[EnvWorker]:
        # Queues bind to one event loop; the sync twins run a new loop per call, so free workers
        # move to a fresh queue when the loop changes.
        loop = asyncio.get_running_loop()
        if self._free is None or self._loop is not loop:
            old, self._free, self._loop = self._free, asyncio.Queue(), loop
            while old is not None and not old.empty():
                self._free.put_nowait(old.get_nowait())
        return self._free

    async def acquire(self, timeout_s: float) -> EnvWorker:
        """A free worker, making one if fewer than ``size`` are live."""
        free = self._queue()
        if free.empty() and self._live < self.size:
            self._live += 1
            try:
                worker = await asyncio.wait_for(self.factory(), self.create_timeout_s)
            except BaseException:
                self._live -= 1
                raise
            self.stats.created += 1
            self._all.add(worker)
            return worker
        try:
            worker = await asyncio.wait_for(free.get(), timeout_s)
        except TimeoutError as e:
            raise PoolTimeout(f"no env worker free within {timeout_s:.0f}s") from e
        self.stats.reused += 1
        return worker

    def release(self, worker: EnvWorker) -> None:
        """Give a healthy worker back."""
        self._queue().put_nowait(worker)

    def discard(self, worker: EnvWorker, reason: str) -> None:
        """Drop a broken worker: close it in the background; a new one is made on demand."""
        logger.warning("replacing env worker %s: %s", worker.env_id, reason)
        self._live -= 1
        self._all.discard(worker)
        self.stats.discarded += 1
        fut = asyncio.get_running_loop().run_in_executor(None, worker.close, self.close_timeout_s)
        self._closing.add(fut)
        fut.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        """Close every worker (free or not) and wait for background closes, all bounded."""
        workers = list(self._all)
        self._all.clear()
        self._live = 0
        self._free = self._loop = None
        if workers:
            await asyncio.wait_for(
                asyncio.gather(
                    *(asyncio.to_thread(w.close, self.close_timeout_s) for w in workers),
                    return_exceptions=True,
                ),
                self.close_timeout_s + 5,
            )
        if self._closing:
            await asyncio.wait(list(self._closing), timeout=self.close_timeout_s + 5)


__all__ = ["EnvPool", "PoolStats", "PoolTimeout"]
