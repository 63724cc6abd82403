"""The live shell on Docker: one container per episode whose PID 1 is the live shell's server.

The same protocol as :mod:`.bubblewrap_live` (:mod:`._live_init` serving requests), over the
container's attach stream: the container (the locked-down settings of
:class:`._docker_session.DockerShell`: uid 65534, no network, read-only root, no capabilities,
memory/pids/CPU limits, size-capped tmpfs mounts) runs ``python3 -c <_live_init>`` as PID 1,
which the agent's processes cannot signal. Each command is one request on the open stream: no
``docker exec``, no tar. The container is removed when the shell is closed (a reset).
"""

from __future__ import annotations

import contextlib
import select
import tempfile
import time

from ._docker_exec import _HEADER, _raw_socket
from ._docker_pool import owner_labels
from ._docker_session import UID, DockerShell
from .bubblewrap_live import INIT, LiveShell, SandboxGone


class DockerLiveShell(LiveShell):
    """A fresh container of ``shell``'s image and settings holding ``state``."""

    nproc = False  # uid 65534 is shared with every other container: the pids limit counts

    def __init__(self, shell: DockerShell, state: bytes, owner: object = None) -> None:
        self._bind(shell, owner)
        self._pending = b""
        self._cgroup = None
        self._errlog = tempfile.TemporaryFile()
        api = shell.client.api
        budget = (len(shell.roots) + len(shell.scratch) + 1) * self.limits.disk_mb
        try:
            created = api.create_container(
                shell.image, ["python3", "-I", "-S", "-c", INIT], user=UID, hostname="sandbox",
                working_dir="/", labels=owner_labels(), network_disabled=True,
                environment=shell.env, stdin_open=True, tty=False,
                host_config=shell.host_config(extra_mb=budget),
            )  # fmt: skip
            self.container_id = str(created["Id"])
            self._handle = api.attach_socket(
                self.container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            self._sock = _raw_socket(self._handle)
            api.start(self.container_id)
        except Exception as e:  # the engine refused: not the agent's doing
            self.close()
            raise SandboxGone(f"cannot start the container: {type(e).__name__}: {e}") from None
        self._started(state)

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
        """Remove the container and everything in it (idempotent)."""
        self._dead = self._dead or "closed"
        for name in ("_sock", "_handle"):
            with contextlib.suppress(Exception):
                getattr(self, name).close()
        cid = getattr(self, "container_id", "")
        if cid:
            with contextlib.suppress(Exception):
                self.shell.client.api.remove_container(cid, force=True)  # type: ignore[attr-defined]
            self.container_id = ""
        self._release()


__all__ = ["DockerLiveShell"]
