"""One sandbox container: its locked-down settings, its owner labels, start and stop.

Each container is locked down (no network, read-only root, tmpfs ``/work`` and ``/tmp``, no
capabilities for the program, ``no-new-privileges``, memory/CPU/pid limits). Its PID 1 is either
the resident run server (:mod:`._docker_server`, when the engine runs on this host and can
bind-mount a directory from it) or a tiny reaper that idles while runs come in by ``docker
exec``. Containers carry the labels ``agentgym.sandbox=1`` and
``agentgym.owner_pid``/``owner_start``/``owner_host``; they are created with auto-remove, so
stopping one is enough to have the engine delete it. :func:`reap_leaked` removes those whose
owner process is gone (a parent killed with ``kill -9``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import tempfile
from dataclasses import dataclass
from typing import Any

from agentgym.sandbox import SandboxLimits

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


def wait_removed(client: Any, cid: str) -> None:
    """Until the engine has deleted a killed auto-remove container (at once if it is gone)."""
    with contextlib.suppress(Exception):
        client.api.wait(cid, timeout=120, condition="removed")
