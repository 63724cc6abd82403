"""The warm pool of one :class:`~._docker_container.PoolKey`: idle containers, started ahead.

The pool is bounded by the concurrency its users ask for (each :class:`DockerSandbox` adds its
``concurrency``, capped by ``max_size``): a new container is started only for a caller that
would otherwise wait and has none being started for it. Idle containers beyond ``size`` are
stopped after ``idle_s``; closing a pool stops all its containers in parallel. A new pool first
removes containers whose owner process is gone (:func:`~._docker_container.reap_leaked`).
Runs borrow a container (:meth:`ContainerPool.acquire`/:meth:`~ContainerPool.release`);
episodes take one for good (:meth:`~ContainerPool.take`/:meth:`~ContainerPool.discard`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentgym.sandbox import SandboxError

from ._docker_container import (
    Container,
    create_container,
    reap_leaked,
    remove_container,
    wait_removed,
)

logger = logging.getLogger(__name__)


class ContainerPool:
    """Idle containers for one :class:`PoolKey`; hand one out per run, start more on demand.

    ``size`` containers are kept warm; capacity is the concurrency the attached sandboxes asked
    for, at most ``max_size``. Idle containers beyond ``size`` are stopped after ``idle_s``.
    ``create(client)`` starts one container (default: :func:`create_container` for ``key``);
    :meth:`take` hands containers out for good (never back in the pool) instead of
    :meth:`acquire`/:meth:`release`.
    """

    def __init__(
        self, client: Any, key: Any, *, size: int = 2, max_size: int = 16,
        idle_s: float = 60.0, create: Any = None,
    ) -> None:  # fmt: skip
        self.client = client
        self.key = key
        self._create = create or (lambda c: create_container(c, key))
        self._remove_wait = False
        self.size = size
        self.max_size = max(1, max_size)
        self.idle_s = idle_s
        self._demand = 0
        self._idle: list[Container] = []
        self._busy: dict[str, Container] = {}
        self._creating = 0
        self._waiting = 0
        self._cond = threading.Condition()
        self._closed = False
        self._error = ""
        self._bg = ThreadPoolExecutor(max_workers=4, thread_name_prefix="agentgym-pool")
        reap_leaked(client)
        for _ in range(min(size, self.max_size)):
            self._spawn_async()
        self._trimmer = threading.Thread(target=self._trim_loop, daemon=True,
                                         name="agentgym-pool-trim")  # fmt: skip
        self._trimmer.start()

    # -- capacity ---------------------------------------------------------------------------

    @property
    def capacity(self) -> int:
        """Most containers alive at once: the attached concurrency, within [1, max_size]."""
        return max(1, min(self.max_size, max(self._demand, 1)))

    @property
    def live(self) -> int:
        """Containers alive or being started."""
        return len(self._idle) + len(self._busy) + self._creating

    def attach(self, concurrency: int) -> None:
        """A sandbox starts using the pool with up to ``concurrency`` runs at once."""
        with self._cond:
            self._demand += max(1, concurrency)

    def detach(self, concurrency: int) -> None:
        """A sandbox stops using the pool; idle containers over the new capacity are stopped."""
        with self._cond:
            self._demand = max(0, self._demand - max(1, concurrency))
            excess = self._take_excess(keep=max(self.size, self.capacity))
        self._stop(excess)

    def _take_excess(self, keep: int) -> list[Container]:
        """Pop idle containers beyond ``keep`` live ones (caller holds the lock)."""
        excess = []
        while self._idle and len(self._idle) + len(self._busy) > keep:
            excess.append(self._idle.pop(0))
        return excess

    def _stop(self, containers: list[Container]) -> None:
        for container in containers:
            remove_container(self.client, container, wait=False)  # a kill: quick

    def _trim_loop(self) -> None:
        """Stop idle containers beyond ``size`` that have been idle for ``idle_s``."""
        while True:
            with self._cond:
                self._cond.wait(timeout=max(1.0, self.idle_s / 4))
                if self._closed:
                    return
                now = time.monotonic()
                stale = [c for c in self._idle if now - c.idle_since > self.idle_s]
                doomed = stale[: max(0, len(self._idle) + len(self._busy) - self.size)]
                for container in doomed:
                    self._idle.remove(container)
            self._stop(doomed)

    # -- containers -------------------------------------------------------------------------

    def _spawn_async(self) -> None:
        with self._cond:
            if self._closed or self.live >= self.capacity:
                return
            self._creating += 1
        self._bg.submit(self._spawn)

    def _spawn(self) -> None:
        container: Container | None = None
        try:
            container = self._create(self.client)
        except Exception as e:
            logger.warning("could not start a sandbox container: %s", e)
            error = f"{type(e).__name__}: {e}"
        else:
            error = ""
        with self._cond:
            self._creating -= 1
            self._error = error
            closed = self._closed
            if container is not None and not closed:
                container.idle_since = time.monotonic()
                self._idle.append(container)
            self._cond.notify_all()
        if container is not None and closed:
            remove_container(self.client, container, wait=self._remove_wait)

    def acquire(self, timeout: float = 300.0) -> Container:
        """Take an idle container, starting one if this caller would otherwise wait for none.

        Raises :class:`SandboxError` on timeout, when closed, or when containers cannot start.
        """
        with self._cond:
            self._waiting += 1
            try:
                if not self._idle and self._waiting > self._creating and self.live < self.capacity:
                    self._creating += 1
                    self._bg.submit(self._spawn)
                failed = lambda: bool(self._error) and not self._creating  # noqa: E731
                if not self._cond.wait_for(
                    lambda: self._idle or self._closed or failed(), timeout=timeout
                ):
                    raise SandboxError(f"no sandbox container became ready within {timeout:.0f} s")
                if self._closed:
                    raise SandboxError("the container pool is closed")
                if not self._idle:
                    raise SandboxError(f"cannot start a sandbox container: {self._error}")
                container = self._idle.pop()
                self._busy[container.id] = container
                return container
            finally:
                self._waiting -= 1

    def release(self, container: Container, *, healthy: bool) -> None:
        """Return a container after a run; an unhealthy one is stopped and replaced on demand."""
        with self._cond:
            self._busy.pop(container.id, None)
            if healthy and not self._closed and self.live < self.capacity:
                container.idle_since = time.monotonic()
                self._idle.append(container)
                self._cond.notify_all()
                return
            self._cond.notify_all()
            closed = self._closed
        if closed:
            remove_container(self.client, container, wait=False)
            return
        self._bg.submit(remove_container, self.client, container, wait=False)
        if self._waiting or self.live < self.size:
            self._spawn_async()

    def take(self, timeout: float = 300.0) -> Container:
        """Take a container for good: an idle one, else one being started that no other caller
        waits for, else one started now on the caller's thread (past the capacity: a fork never
        waits on another episode's container). Then a spare is started in the background, within
        the capacity. Give it back with :meth:`discard`; raises what starting one
        raised, or :class:`SandboxError` when closed."""
        with self._cond:
            self._waiting += 1
            try:
                self._cond.wait_for(lambda: self._idle or self._closed
                                    or self._creating < self._waiting, timeout=timeout)
                if self._closed:
                    raise SandboxError("the container pool is closed")
                container = self._idle.pop(0) if self._idle else None
                if container is not None:
                    self._busy[container.id] = container
            finally:
                self._waiting -= 1
        if container is None:
            container = self._create(self.client)
            with self._cond:
                closed = self._closed
                if not closed:
                    self._busy[container.id] = container
            if closed:
                remove_container(self.client, container)
                raise SandboxError("the container pool is closed")
        self._spawn_async()
        return container

    def discard(self, container: Container) -> None:
        """A taken container is done: killed now (every process in it ends before this
        returns), deleted by the engine (auto-remove) while the next episode runs; closing the
        pool waits for the deletions."""
        remove_container(self.client, container, wait=False)
        with self._cond:
            self._busy.pop(container.id, None)
            refill = not self._idle and not self._creating
            closed = self._closed
            self._cond.notify_all()
        if closed:
            remove_container(self.client, container)
            return
        self._bg.submit(wait_removed, self.client, container.id)
        if refill:
            self._spawn_async()

    def wait_idle(self, count: int = 1, timeout: float = 300.0) -> bool:
        """Wait until ``count`` containers are idle (started, not taken); False on timeout or
        when none is being started any more."""
        with self._cond:
            return self._cond.wait_for(
                lambda: len(self._idle) >= count or self._closed
                or not self._creating, timeout=timeout) and len(self._idle) >= count

    def idle_ids(self) -> list[str]:
        """The ids of the idle containers (for tests and diagnostics)."""
        with self._cond:
            return [c.id for c in self._idle]

    def close(self, wait: bool = False) -> None:
        """Stop every container of the pool in parallel (the engine deletes them); with
        ``wait`` each is deleted before this returns."""
        with self._cond:
            self._remove_wait = wait
            self._closed = True
            doomed = self._idle + list(self._busy.values())
            self._idle, self._busy = [], {}
            self._cond.notify_all()
        # Plain threads: at interpreter exit (atexit) executors accept no new work.
        stoppers = [
            threading.Thread(target=remove_container, args=(self.client, c),
                             kwargs={"wait": wait}, daemon=True)
            for c in doomed
        ]  # fmt: skip
        for thread in stoppers:
            thread.start()
        for thread in stoppers:
            thread.join(timeout=30.0)
        self._bg.shutdown(wait=True)
        with contextlib.suppress(Exception):
            self.client.close()
