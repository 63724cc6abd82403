"""Pre-started sandbox containers, shared per (engine, image, container limits), reaped on exit.

Each container is locked down (no network, read-only root, tmpfs ``/work`` and ``/tmp``, no
capabilities for the program, ``no-new-privileges``, memory/CPU/pid limits). Its PID 1 is either
the resident run server (:mod:`._docker_server`, when the engine runs on this host and can
bind-mount a directory from it) or a tiny reaper that idles while runs come in by ``docker
exec``. Containers carry the labels ``agentgym.sandbox=1`` and
``agentgym.owner_pid``/``owner_start``/``owner_host``; they are created with auto-remove, so
stopping one is enough to have the engine delete it.

The pool is bounded by the concurrency its users ask for (each :class:`DockerSandbox` adds its
``concurrency``, capped by ``max_size``): a new container is started only for a caller that
would otherwise wait and has none being started for it. Idle containers beyond ``size`` are
stopped after ``idle_s``; a pool is shut down by stopping all its containers in parallel (at
exit through ``atexit``), and every new pool first removes containers whose owner process is
gone, so a parent killed with ``kill -9`` leaks nothing past the next start.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import socket
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from agentgym.sandbox import SandboxError, SandboxLimits

from ._docker_server import MOUNT, SERVER, SOCKET_NAME, wait_for_socket
from ._script import WIPE

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
    server: bool = True
    """PID 1 is the resident run server (else runs go through ``docker exec``)."""

    @classmethod
    def of(cls, client: Any, image: str, limits: SandboxLimits, server: bool = True) -> PoolKey:
        """The key for running ``limits`` on ``image`` through ``client``."""
        url = str(client.api.base_url)
        return cls(url, image, limits.memory_mb, limits.cpus, limits.pids, limits.disk_mb, server)


def local_engine(client: Any) -> bool:
    """Whether the engine listens on a unix socket of this host (so bind mounts reach us)."""
    return str(client.api.base_url).startswith(("http+unix://", "unix://", "http+docker://"))


@dataclass
class Container:
    """One pooled container: its id and, in server mode, the host side of its socket."""

    id: str
    socket_path: str | None = None
    """The run server's socket; ``None`` when runs go through ``docker exec``."""
    host_dir: str | None = None
    """The host directory bind-mounted at :data:`MOUNT` (removed with the container)."""
    idle_since: float = 0.0
    attached: tuple[Any, ...] = ()
    """Open streams to the container (a live shell's attach socket), closed with it."""


def create_container(client: Any, key: PoolKey) -> Container:
    """Create and start one locked-down sandbox container.

    With ``key.server`` the container's PID 1 is the run server; if its socket does not show up
    (an engine that cannot bind-mount this host's directories) the container falls back to
    ``docker exec`` runs.
    """
    api = client.api
    tmpfs_opts = f"size={key.disk_mb}m,mode=1777,nosuid,nodev"
    memory = f"{key.memory_mb + INFRA_MEMORY_MB}m"
    host_dir = tempfile.mkdtemp(prefix="agentgym-sbx-") if key.server else None
    extra: dict[str, Any] = {}
    if host_dir is not None:
        os.chmod(host_dir, 0o700)  # root only: uid 65534 in the container cannot enter it
        command = ["python3", "-c", SERVER, MOUNT, WIPE]
        user = "0:0"  # without DAC_OVERRIDE: only SETUID/SETGID (to drop to 65534) and KILL
        extra = {"binds": {host_dir: {"bind": MOUNT, "mode": "rw"}},
                 "cap_add": ["SETUID", "SETGID", "KILL"]}  # fmt: skip
    else:
        command, user = ["python3", "-c", REAPER], UID
    host_config = api.create_host_config(
        network_mode="none", read_only=True, cap_drop=["ALL"],
        security_opt=["no-new-privileges"], mem_limit=memory, memswap_limit=memory,
        nano_cpus=int(key.cpus * 1e9), pids_limit=key.pids + INFRA_PIDS,
        tmpfs={"/work": f"{tmpfs_opts},exec", "/tmp": f"{tmpfs_opts},noexec"},
        ulimits=[{"Name": "core", "Soft": 0, "Hard": 0}], auto_remove=True, **extra,
    )  # fmt: skip
    try:
        created = api.create_container(
            key.image, command, user=user, hostname="sandbox",
            working_dir="/work", environment=ENV, labels=owner_labels(),
            network_disabled=True, host_config=host_config,
        )  # fmt: skip
    except Exception:
        if host_dir is not None:
            shutil.rmtree(host_dir, ignore_errors=True)
        raise
    cid = str(created["Id"])
    try:
        api.start(cid)
    except Exception:
        remove_container(client, Container(cid, host_dir=host_dir))
        raise
    container = Container(cid, host_dir=host_dir)
    if host_dir is not None:
        path = os.path.join(host_dir, SOCKET_NAME)
        if wait_for_socket(path, 10.0):
            container.socket_path = path
        else:
            logger.warning("sandbox run server did not start in %s; using docker exec", cid[:12])
    return container


def remove_container(client: Any, container: Container, *, wait: bool = True) -> None:
    """Stop and delete ``container``; with ``wait=False`` only stop it (auto-remove deletes it)."""
    for stream in container.attached:
        with contextlib.suppress(Exception):
            stream.close()
    with contextlib.suppress(Exception):
        if wait:
            client.api.remove_container(container.id, force=True)
        else:
            client.api.kill(container.id)
    if container.host_dir is not None:
        shutil.rmtree(container.host_dir, ignore_errors=True)


def _wait_removed(client: Any, cid: str) -> None:
    """Until the engine has deleted a killed auto-remove container (at once if it is gone)."""
    with contextlib.suppress(Exception):
        client.api.wait(cid, timeout=120, condition="removed")


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
        self._bg.submit(_wait_removed, self.client, container.id)
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
