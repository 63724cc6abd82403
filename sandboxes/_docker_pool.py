"""Pre-started sandbox containers, shared per (engine, image, container limits), reaped on exit.

The process-wide warm pools: one :class:`~._docker_warm_pool.ContainerPool` per key, made on
first use (:func:`get_pool`), closed when its last user leaves (:func:`detach_pool`), and all
stopped at interpreter exit (:func:`shutdown_pools`, through ``atexit``). The pool itself is
in :mod:`._docker_warm_pool`; one container (settings, owner labels, start, stop, reaping of
leaked ones) in :mod:`._docker_container`. Their names are importable from here too.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from typing import Any

from ._docker_container import (
    ENV,
    INFRA_MEMORY_MB,
    INFRA_PIDS,
    LABEL,
    REAPER,
    UID,
    Container,
    PoolKey,
    create_container,
    local_engine,
    owner_labels,
    reap_leaked,
    remove_container,
)
from ._docker_warm_pool import ContainerPool

_POOLS: dict[Any, ContainerPool] = {}
_POOLS_LOCK = threading.Lock()


def get_pool(client_factory: Any, key: Any, size: int, max_size: int,
             **options: Any) -> ContainerPool:
    """The process-wide pool for ``key``, created on first use with its own client.

    ``client_factory`` makes the pool's Docker client (sandboxes close their own clients);
    ``options``: :class:`ContainerPool`'s (``create``, ``idle_s``).
    """
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = ContainerPool(client_factory(), key, size=size,
                                               max_size=max_size, **options)  # fmt: skip
        return pool


def detach_pool(key: Any, concurrency: int) -> None:
    """A user of ``key``'s pool leaves; the last one out closes it, every container deleted
    before this returns."""
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            return
        pool.detach(concurrency)
        if pool._demand > 0:
            return
        del _POOLS[key]
    pool.close(wait=True)


def shutdown_pools() -> None:
    """Stop every pooled container of this process (also runs at interpreter exit)."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        with contextlib.suppress(Exception):
            pool.close()


atexit.register(shutdown_pools)

__all__ = [
    "ENV", "INFRA_MEMORY_MB", "INFRA_PIDS", "LABEL", "REAPER", "UID", "Container",
    "ContainerPool", "PoolKey", "create_container", "detach_pool", "get_pool", "local_engine",
    "owner_labels", "reap_leaked", "remove_container", "shutdown_pools",
]
