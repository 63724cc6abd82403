"""Pre-started sandbox containers, shared per (engine, image, container limits), reaped on exit.

Each container is locked down (no network, read-only root, tmpfs ``/work`` and ``/tmp``, uid
65534, no capabilities, ``no-new-privileges``, memory/CPU/pid limits) and idles under a tiny
PID 1 that only reaps zombies and cannot be ptraced. Containers carry the labels
``agentgym.sandbox=1`` and ``agentgym.owner_pid``/``owner_start``/``owner_host``: a pool removes
its own at exit (``atexit``), and every new pool first removes containers whose owner process is
gone, so a parent killed with ``kill -9`` leaks nothing past the next start.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from agentgym.sandbox import SandboxError, SandboxLimits

logger = logging.getLogger(__name__)

LABEL = "agentgym.sandbox"
UID = "65534:65534"
ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "USER": "sandbox",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
}
# PID 1: reap orphans, ignore every signal (a PID 1 without handlers cannot be killed from
# inside), and turn off "dumpable" so a program cannot ptrace it or read its memory.
REAPER = """\
import ctypes, os, signal
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
while True:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass
    signal.sigtimedwait({signal.SIGCHLD}, 60)
"""
INFRA_PIDS = 8
INFRA_MEMORY_MB = 64


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks (``""`` if it is gone), to spot pid reuse."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def owner_labels() -> dict[str, str]:
    """Labels naming this process as the owner of a container."""
    pid = os.getpid()
    return {
        LABEL: "1",
        f"{LABEL}.owner_pid": str(pid),
        f"{LABEL}.owner_start": _start_time(pid),
        f"{LABEL}.owner_host": socket.gethostname(),
    }


def reap_leaked(client: Any) -> int:
    """Remove sandbox containers of this host whose owner process is gone; return the count."""
    removed = 0
    host = socket.gethostname()
    for info in client.api.containers(all=True, filters={"label": f"{LABEL}=1"}):
        labels = info.get("Labels") or {}
        if labels.get(f"{LABEL}.owner_host") != host:
            continue
        try:
            pid = int(labels.get(f"{LABEL}.owner_pid", ""))
        except ValueError:
            pid = -1
        if pid > 0 and _start_time(pid) == labels.get(f"{LABEL}.owner_start"):
            continue
        with contextlib.suppress(Exception):
            client.api.remove_container(info["Id"], force=True)
            removed += 1
    if removed:
        logger.info("removed %d leaked sandbox container(s)", removed)
    return removed


@dataclass(frozen=True)
class PoolKey:
    """What makes two pools interchangeable: the engine, the image and container-level limits."""

    base_url: str
    image: str
    memory_mb: int
    cpus: float
    pids: int
    disk_mb: int

    @classmethod
    def of(cls, client: Any, image: str, limits: SandboxLimits) -> PoolKey:
        """The key for running ``limits`` on ``image`` through ``client``."""
        url = str(client.api.base_url)
        return cls(url, image, limits.memory_mb, limits.cpus, limits.pids, limits.disk_mb)


def create_container(client: Any, key: PoolKey) -> str:
    """Create and start one locked-down sandbox container; return its id."""
    api = client.api
    tmpfs_opts = f"size={key.disk_mb}m,mode=1777,nosuid,nodev"
    memory = f"{key.memory_mb + INFRA_MEMORY_MB}m"
    host_config = api.create_host_config(
        network_mode="none", read_only=True, cap_drop=["ALL"],
        security_opt=["no-new-privileges"], mem_limit=memory, memswap_limit=memory,
        nano_cpus=int(key.cpus * 1e9), pids_limit=key.pids + INFRA_PIDS,
        tmpfs={"/work": f"{tmpfs_opts},exec", "/tmp": f"{tmpfs_opts},noexec"},
        ulimits=[{"Name": "core", "Soft": 0, "Hard": 0}],
    )  # fmt: skip
    container = api.create_container(
        key.image, ["python3", "-c", REAPER], user=UID, hostname="sandbox",
        working_dir="/work", environment=ENV, labels=owner_labels(),
        network_disabled=True, host_config=host_config,
    )  # fmt: skip
    try:
        api.start(container["Id"])
    except Exception:
        with contextlib.suppress(Exception):
            api.remove_container(container["Id"], force=True)
        raise
    return str(container["Id"])


class ContainerPool:
    """Idle containers for one :class:`PoolKey`; hand one out per run, refill in the background.

    ``size`` containers are kept ready; under more concurrency the pool grows up to
    ``max_size`` and waits beyond that.
    """

    def __init__(self, client: Any, key: PoolKey, *, size: int = 2, max_size: int = 16) -> None:
        self.client = client
        self.key = key
        self.size = size
        self.max_size = max(size, max_size)
        self._idle: list[str] = []
        self._live: set[str] = set()
        self._creating = 0
        self._cond = threading.Condition()
        self._closed = False
        self._error = ""
        self._bg = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agentgym-pool")
        reap_leaked(client)
        for _ in range(size):
            self._spawn_async()

    def _spawn_async(self) -> None:
        with self._cond:
            if self._closed or len(self._live) + self._creating >= self.max_size:
                return
            self._creating += 1
        self._bg.submit(self._spawn)

    def _spawn(self) -> None:
        try:
            cid = create_container(self.client, self.key)
        except Exception as e:
            logger.warning("could not start a sandbox container: %s", e)
            cid, error = "", f"{type(e).__name__}: {e}"
        else:
            error = ""
        with self._cond:
            self._creating -= 1
            self._error = error
            if cid and self._closed:
                self._bg.submit(self._remove, cid)
            elif cid:
                self._live.add(cid)
                self._idle.append(cid)
            self._cond.notify_all()

    def acquire(self, timeout: float = 300.0) -> str:
        """Take an idle container, starting one if none is ready; raise SandboxError on timeout."""
        with self._cond:
            if not self._idle and len(self._live) + self._creating < self.max_size:
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
            return self._idle.pop()

    def release(self, cid: str, *, healthy: bool) -> None:
        """Return a container after a run; an unhealthy one is replaced by a fresh one."""
        with self._cond:
            if healthy and not self._closed:
                self._idle.append(cid)
                self._cond.notify_all()
                return
            self._live.discard(cid)
        self._bg.submit(self._remove, cid)
        self._spawn_async()

    def _remove(self, cid: str) -> None:
        with contextlib.suppress(Exception):
            self.client.api.remove_container(cid, force=True)

    def close(self) -> None:
        """Remove every container of the pool and stop refilling."""
        with self._cond:
            self._closed = True
            doomed = list(self._live)
            self._live.clear()
            self._idle.clear()
            self._cond.notify_all()
        for cid in doomed:
            self._remove(cid)
        self._bg.shutdown(wait=True)


_POOLS: dict[PoolKey, ContainerPool] = {}
_POOLS_LOCK = threading.Lock()


def get_pool(client: Any, key: PoolKey, size: int, max_size: int) -> ContainerPool:
    """The process-wide pool for ``key``, created on first use."""
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = ContainerPool(client, key, size=size, max_size=max_size)
        return pool


def shutdown_pools() -> None:
    """Remove every pooled container of this process (also runs at interpreter exit)."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        with contextlib.suppress(Exception):
            pool.close()


atexit.register(shutdown_pools)
