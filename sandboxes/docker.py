"""The Docker backend: runs in a warm pool of locked-down containers (or cold, one each).

A warm run takes an idle container from the shared pool (:mod:`._docker_pool`). When the engine
is local, the container's PID 1 is a resident run server (:mod:`._docker_server`): the run is
one unix-socket request, and the server forks a child that drops to uid 65534, unpacks the files
into a fresh ``/work/run-*`` dir, applies the rlimits and runs the program (a Python program
without starting a new interpreter); afterwards it kills leftovers and empties ``/work`` and
``/tmp``. Otherwise (``mode="exec"``, or a remote engine) the wrapper script (:mod:`._script`)
is ``docker exec``\\ ed as uid 65534 and does the same with ``timeout -s KILL`` and
``prlimit``; fetched files come back through a second exec (``tar -c``). Memory is capped by the
container's cgroup, not by an address-space limit, so multi-threaded programs run. The
container goes back to the pool, or is replaced when it died, was OOM-killed or would not come
clean; a container that dies under a run gives a ``sandbox_error`` result.

``mode="cold"`` starts a brand-new container for every run and removes it afterwards: the
``docker run --rm``-per-call baseline the benchmark compares against.

Start an engine and build the image with ``scripts/start_dockerd.sh`` and
``scripts/build_sandbox_image.sh``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from agentgym.sandbox import (
    RunResult,
    RunStatus,
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxUnavailable,
)

from ._docker_exec import exec_run
from ._docker_pool import (
    ENV,
    UID,
    Container,
    PoolKey,
    create_container,
    get_pool,
    local_engine,
    reap_leaked,
    remove_container,
)
from ._docker_server import run_on_server
from ._files import pack_files, unpack_files
from ._script import KILL_LEFTOVERS, build_script, classify, fetch_script, rlimits

logger = logging.getLogger(__name__)

DEFAULT_IMAGE = "agentgym-sandbox:py3"
GRACE_S = 5.0
_CGROUP_OOM = (
    "/sys/fs/cgroup/memory/docker/{id}/memory.oom_control",
    "/sys/fs/cgroup/system.slice/docker-{id}.scope/memory.events",
    "/sys/fs/cgroup/docker/{id}/memory.events",
)


def _client(base_url: str | None = None) -> Any:
    """A docker client that answers ``ping``, or raise :class:`SandboxUnavailable`."""
    try:
        import docker
    except ImportError as e:
        raise SandboxUnavailable(
            "docker backend: the 'docker' package is missing (pip install 'agentgym[code]')"
        ) from e
    try:
        client = docker.DockerClient(base_url=base_url) if base_url else docker.from_env()
        client.ping()
    except Exception as e:
        raise SandboxUnavailable(
            f"docker backend: no Docker engine reachable ({e}); start one with "
            "scripts/start_dockerd.sh"
        ) from e
    return client


def docker_available(image: str = DEFAULT_IMAGE) -> bool:
    """Whether a Docker engine answers and has the sandbox image."""
    try:
        client = _client()
        client.api.inspect_image(image)
    except Exception:
        return False
    return True


def _oom_kills(cid: str) -> int | None:
    """The container cgroup's OOM-kill count when the host exposes it, else ``None``."""
    for pattern in _CGROUP_OOM:
        try:
            text = Path(pattern.format(id=cid)).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill":
                return int(value)
    return None


def _container_lost(duration_s: float) -> RunResult:
    """The result of a run whose container stopped or vanished while it ran."""
    return RunResult(
        status=RunStatus.SANDBOX_ERROR, duration_s=duration_s,
        error="the sandbox container stopped during the run",
    )  # fmt: skip


class DockerSandbox(Sandbox):
    """Runs each command in a pooled container (see the module docstring).

    ``pool_size`` containers per distinct container-level limits are kept warm and shared by
    every DockerSandbox of the process, up to the concurrency the open sandboxes asked for;
    ``close`` detaches (idle containers over the new capacity stop) and closes the Docker
    client, and :func:`agentgym.sandboxes.shutdown_pools` (also run at exit) stops them all.
    """

    name = "docker"

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        image: str = DEFAULT_IMAGE,
        mode: str = "warm",
        pool_size: int = 2,
        max_pool_size: int = 16,
        concurrency: int = 1,
        base_url: str | None = None,
    ) -> None:
        """Connect to the engine and attach to the shared pool.

        ``mode``: ``warm`` (pooled containers with the resident run server where the engine is
        local, else ``docker exec``), ``exec`` (pooled containers, always ``docker exec``) or
        ``cold`` (a new container per run). ``concurrency``: runs this sandbox may issue at
        once; the pool holds at most the sum over its sandboxes, capped by ``max_pool_size``.
        """
        super().__init__(limits)
        if mode not in ("warm", "exec", "cold"):
            raise ValueError(f"mode must be 'warm', 'exec' or 'cold', not {mode!r}")
        self.client = _client(base_url)
        try:
            self.client.api.inspect_image(image)
        except Exception as e:
            self.client.close()
            raise SandboxUnavailable(
                f"docker backend: image {image!r} not found; build it with "
                "scripts/build_sandbox_image.sh"
            ) from e
        self.image = image
        self.mode = mode
        self._base_url = base_url
        self._server = mode == "warm" and local_engine(self.client)
        self._pool_size = pool_size
        self._max_pool_size = max_pool_size
        self._concurrency = max(1, concurrency)
        self._attached: set[PoolKey] = set()
        self._attach_lock = threading.Lock()
        self.last_container_id: str | None = None
        """The container of the latest run (for tests and debugging)."""
        self.last_container_replaced = False
        """Whether the latest run's container was discarded instead of going back to the pool."""
        if mode != "cold":
            self._pool(self.limits)
        else:
            reap_leaked(self.client)

    def _pool(self, limits: SandboxLimits) -> Any:
        """The shared pool for ``limits``, attached to on first use."""
        key = PoolKey.of(self.client, self.image, limits, server=self._server)
        pool = get_pool(lambda: _client(self._base_url), key, self._pool_size,
                        self._max_pool_size)  # fmt: skip
        with self._attach_lock:
            if key not in self._attached:
                self._attached.add(key)
                pool.attach(self._concurrency)
        return pool

    def close(self) -> None:
        """Detach from the pools (idle containers over capacity stop) and close the client."""
        if self.closed:
            return
        super().close()
        with self._attach_lock:
            keys, self._attached = list(self._attached), set()
        for key in keys:
            pool = get_pool(lambda: _client(self._base_url), key, self._pool_size,
                            self._max_pool_size)  # fmt: skip
            pool.detach(self._concurrency)
        with contextlib.suppress(Exception):
            self.client.close()

    def _run(
        self,
        command: list[str],
        stdin: bytes,
        files: dict[str, bytes],
        fetch: list[str],
        limits: SandboxLimits,
    ) -> RunResult:
        if self.mode == "cold":
            key = PoolKey.of(self.client, self.image, limits, server=False)
            container = create_container(self.client, key)
            self.last_container_id, self.last_container_replaced = container.id, True
            try:
                return self._run_in(container.id, command, stdin, files, fetch, limits)[0]
            finally:
                remove_container(self.client, container)
        pool = self._pool(limits)
        container = pool.acquire()
        healthy = False
        try:
            if container.socket_path is not None:
                result, healthy = self._run_served(container, command, stdin, files, fetch,
                                                   limits)  # fmt: skip
            else:
                result, healthy = self._run_in(container.id, command, stdin, files, fetch, limits)
            return result
        finally:
            self.last_container_id, self.last_container_replaced = container.id, not healthy
            pool.release(container, healthy=healthy)

    def _run_served(
        self,
        container: Container,
        command: list[str],
        stdin: bytes,
        files: dict[str, bytes],
        fetch: list[str],
        limits: SandboxLimits,
    ) -> tuple[RunResult, bool]:
        """Run through the container's resident server; return the result and its health."""
        if container.socket_path is None:
            raise SandboxError("the container has no run server")
        start = time.monotonic()
        total = limits.disk_mb * 1024 * 1024
        try:
            got = run_on_server(
                container.socket_path, command, tar=pack_files(files), stdin=stdin, env=ENV,
                rlimits=rlimits(limits, nproc=False, address_space=False),
                timeout_s=limits.timeout_s, fetch=fetch, fetch_cap=total + 1_048_576,
                cap=limits.output_bytes, deadline=start + limits.timeout_s + GRACE_S,
            )  # fmt: skip
        except (OSError, ValueError, KeyError) as e:  # the server is gone: the container too?
            duration = time.monotonic() - start
            if not self._running(container.id):
                return _container_lost(duration), False
            return RunResult(status=RunStatus.SANDBOX_ERROR, duration_s=duration,
                             error=f"sandbox run server failed: {e}"), False  # fmt: skip
        duration = time.monotonic() - start
        if got.deadline_hit and not self._running(container.id):
            return _container_lost(duration), False
        files_out = unpack_files(got.fetched, max_file_bytes=limits.file_size_mb * 1024 * 1024,
                                 max_total_bytes=total) if got.fetched else {}  # fmt: skip
        result = classify(
            exit_code=got.exit_code, duration_s=got.duration_s if got.exit_code is not None
            else duration, limits=limits, stdout=got.stdout.text(), stderr=got.stderr.text(),
            output_truncated=got.stdout.truncated or got.stderr.truncated, files=files_out,
            host_killed=got.deadline_hit or got.timed_out, oom_killed=got.oom_killed,
        )  # fmt: skip
        return result, not got.deadline_hit  # a reply proves the server (PID 1) is fine

    def _run_in(
        self,
        cid: str,
        command: list[str],
        stdin: bytes,
        files: dict[str, bytes],
        fetch: list[str],
        limits: SandboxLimits,
    ) -> tuple[RunResult, bool]:
        """Run in container ``cid``; return the result and whether the container is reusable."""
        api = self.client.api
        workdir = f"/work/run-{uuid.uuid4().hex[:12]}"
        tar = pack_files(files)
        script = build_script(
            limits, workdir=workdir, tar_bytes=len(tar), fetch=fetch, fetch_fd=None,
            nproc=False, cleanup_before=True, cleanup_after=not fetch, address_space=False,
        )  # fmt: skip
        ooms_before = _oom_kills(cid)
        start = time.monotonic()
        deadline = start + limits.timeout_s + GRACE_S
        got = exec_run(
            api, cid, ["sh", "-c", script, "sh", *command], data=tar + stdin,
            cap=limits.output_bytes, deadline=deadline, user=UID, environment=ENV,
            workdir="/work",
        )  # fmt: skip
        duration = time.monotonic() - start
        files_out: dict[str, bytes] = {}
        clean = not got.deadline_hit
        if fetch and clean:
            files_out, clean = self._fetch(cid, workdir, fetch, limits)
        if not clean:
            clean = self._kill_leftovers(cid)
        ooms_after = _oom_kills(cid)
        oom = None if ooms_after is None else ooms_after > (ooms_before or 0)
        result = classify(
            exit_code=got.exit_code, duration_s=duration, limits=limits,
            stdout=got.stdout.text(), stderr=got.stderr.text(),
            output_truncated=got.stdout.truncated or got.stderr.truncated,
            files=files_out, host_killed=got.deadline_hit, oom_killed=oom,
        )  # fmt: skip
        if got.deadline_hit or result.status is not RunStatus.OK:
            if not self._running(cid):  # killed or removed under us: not the program's doing
                return _container_lost(duration), False
        healthy = clean and not (result.memory_killed and oom is not False)
        return result, healthy

    def _fetch(
        self, cid: str, workdir: str, fetch: list[str], limits: SandboxLimits
    ) -> tuple[dict[str, bytes], bool]:
        """Tar the fetched paths out of the workdir (then clean it); return files and success."""
        total = limits.disk_mb * 1024 * 1024
        got = exec_run(
            self.client.api, cid, ["sh", "-c", fetch_script(workdir, fetch)], data=b"",
            cap=total + 1_048_576, deadline=time.monotonic() + 30.0, user=UID,
            environment=ENV,
        )  # fmt: skip
        files = unpack_files(
            bytes(got.stdout.data), max_file_bytes=limits.file_size_mb * 1024 * 1024,
            max_total_bytes=total,
        )  # fmt: skip
        return files, got.exit_code == 0

    def _kill_leftovers(self, cid: str) -> bool:
        """Kill every sandbox-user process but PID 1; True if the container answered."""
        script = KILL_LEFTOVERS + "; exit 0"
        try:
            got = exec_run(
                self.client.api, cid, ["sh", "-c", script], data=b"", cap=4096,
                deadline=time.monotonic() + 10.0, user=UID, environment=ENV,
            )  # fmt: skip
        except Exception as e:
            logger.warning("cleanup of sandbox container %s failed: %s", cid[:12], e)
            return False
        return got.exit_code == 0

    def _running(self, cid: str) -> bool:
        try:
            return bool(self.client.api.inspect_container(cid)["State"]["Running"])
        except Exception:
            return False
