"""The live shell on Docker: one container per episode whose PID 1 is the live shell's server.

The same protocol as :mod:`.bubblewrap_live` (:mod:`._live_init` serving requests), over the
container's attach stream: the container (the locked-down settings of
:class:`._docker_session.DockerShell`: uid 65534, no network, read-only root, no capabilities,
memory/pids/CPU limits, size-capped tmpfs mounts) runs ``python3 -c <_live_init>`` as PID 1,
which the agent's processes cannot signal. Each command is one request on the open stream: no
``docker exec``, no tar. The container is removed when the shell is closed (a reset).

Warm pool: a :class:`WarmLease` (one per env and container settings) joins the process-wide
:class:`._docker_pool.ContainerPool` of its :class:`LiveKey`, whose containers are started
ahead in the background (created, attached, PID 1 up) and handed out with
:meth:`~._docker_pool.ContainerPool.take`: each serves one episode and is deleted at its reset,
never back in the pool; taking one starts the next spare. The pool is bounded by its leases'
demand (an episode and its spares each), deleted when the last lease closes, and at exit.
"""

from __future__ import annotations

import hashlib
import select
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from agentgym.sandbox import SandboxLimits

from ._docker_exec import _HEADER, _raw_socket
from ._docker_pool import (
    Container,
    ContainerPool,
    detach_pool,
    get_pool,
    owner_labels,
    remove_container,
)
from ._docker_session import UID, DockerShell
from .bubblewrap_live import INIT, LiveShell, SandboxGone

POOL_LABEL = "agentgym.sandbox.pool"
"""Label naming the warm pool a live container belongs to (a digest of its settings)."""
SPARES_IDLE_S = 3600.0
"""A spare waits this long for an episode before it is stopped (an episode may be slow)."""


@dataclass(frozen=True)
class LiveKey:
    """What makes two live containers interchangeable: the engine, the image and every setting
    of :meth:`DockerShell.host_config` and the environment."""

    base_url: str
    image: str
    roots: tuple[str, ...]
    scratch: tuple[str, ...]
    limits: SandboxLimits
    env: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, shell: DockerShell) -> LiveKey:
        """The key of ``shell``'s live containers."""
        return cls(str(shell.client.api.base_url), shell.image, shell.roots, shell.scratch,
                   shell.limits, tuple(sorted(shell.env.items())))

    @property
    def label(self) -> str:
        """A short digest of the key, the :data:`POOL_LABEL` of its containers."""
        return hashlib.sha256(repr(self).encode()).hexdigest()[:16]


def start_container(client: Any, shell: DockerShell, label: str = "") -> Container:
    """Create, attach to and start a live container of ``shell``'s image and settings; its
    PID 1 is the live shell's server, which greets on the attached stream."""
    api = client.api
    budget = (len(shell.roots) + len(shell.scratch) + 1) * shell.limits.disk_mb
    labels = {**owner_labels(), **({POOL_LABEL: label} if label else {})}
    created = api.create_container(
        shell.image, ["python3", "-I", "-S", "-c", INIT], user=UID, hostname="sandbox",
        working_dir="/", labels=labels, network_disabled=True, environment=shell.env,
        stdin_open=True, tty=False, host_config=shell.host_config(extra_mb=budget),
    )  # fmt: skip
    box = Container(str(created["Id"]))
    try:
        handle = api.attach_socket(
            box.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
        box.attached = (handle,)  # closed with the container should the next line fail
        box.attached = (_raw_socket(handle), handle)
        api.start(box.id)
    except Exception:
        remove_container(client, box)
        raise
    return box


class WarmLease:
    """One env's use of the process-wide warm pool of :class:`LiveKey` (an episode's container
    plus ``spares`` started ahead); closing the last lease deletes the pool's containers."""

    def __init__(self, shell: DockerShell, spares: int = 1, max_size: int = 32) -> None:
        import docker

        self.key = LiveKey.of(shell)
        self.demand = 1 + max(1, spares)
        label = self.key.label
        self.pool = get_pool(docker.from_env,  # as DockerShell's own client
                             self.key, size=max(1, spares), max_size=max_size,
                             idle_s=SPARES_IDLE_S,
                             create=lambda client: start_container(client, shell, label))
        self.pool.attach(self.demand)
        self._closed = False

    def close(self) -> None:
        """Leave the pool (idempotent)."""
        if not self._closed:
            self._closed = True
            detach_pool(self.key, self.demand)


class DockerLiveShell(LiveShell):
    """A fresh container of ``shell``'s image and settings holding ``state``: from ``pool``
    (started ahead, never used before) when given, else started now."""

    nproc = False  # uid 65534 is shared with every other container: the pids limit counts

    def __init__(self, shell: DockerShell, state: bytes, owner: object = None,
                 pool: ContainerPool | None = None) -> None:
        self._bind(shell, owner)
        self._pending = b""
        self._cgroup = None
        self._errlog = tempfile.TemporaryFile()
        self._pool = pool
        self._box: Container | None = None
        try:
            self._box = pool.take() if pool is not None else start_container(shell.client, shell)
        except Exception as e:  # the engine refused: not the agent's doing
            self.close()
            raise SandboxGone(f"cannot start the container: {type(e).__name__}: {e}") from None
        self.container_id = self._box.id
        self._sock, self._handle = self._box.attached
        self._started(state)

    def _fail(self, why: str) -> None:
        cid = getattr(self, "container_id", "")
        super()._fail(f"{why} (container {cid[:12]})" if cid else why)

    def _send(self, data: bytes) -> None:
        self._sock.sendall(data)

    def _recv(self, deadline: float) -> bytes | None:
        """Stdout frames of the attach stream (stderr frames go to the error log)."""
        while True:
            ready, _, _ = select.select([self._sock], [], [],
                                        max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = self._sock.recv(1 << 20)
            if not chunk:
                return b""
            buf, out, pos = self._pending + chunk, bytearray(), 0
            while len(buf) - pos >= _HEADER.size:
                stream, size = _HEADER.unpack_from(buf, pos)
                end = pos + _HEADER.size + size
                if end > len(buf):
                    break
                if stream == 1:
                    out += buf[pos + _HEADER.size:end]
                else:
                    self._errlog.write(buf[pos + _HEADER.size:end][-4096:])
                pos = end
            self._pending = buf[pos:]
            if out:
                return bytes(out)

    @property
    def alive(self) -> bool:
        """Whether the container still answers."""
        return not self._dead

    def close(self) -> None:
        """Remove the container and everything in it (idempotent); a pool's container is
        never handed out again."""
        self._dead = self._dead or "closed"
        box, self._box = getattr(self, "_box", None), None
        if box is not None and self._pool is not None:
            self._pool.discard(box)  # killed now, deleted in the background
        elif box is not None:
            remove_container(self.shell.client, box)  # closes the stream, then deletes
        self.container_id = ""
        self._release()


__all__ = ["POOL_LABEL", "DockerLiveShell", "LiveKey", "WarmLease", "start_container"]
