"""The Docker backend: runs exec into a warm pool of locked-down containers (or cold, one each).

A warm run takes an idle container from the shared pool (:mod:`._docker_pool`), and ``docker
exec``\\s the wrapper script (:mod:`._script`) as uid 65534: it kills anything an earlier run
left, empties ``/work`` and ``/tmp``, unpacks the files into a fresh ``/work/run-*`` dir, runs
the program under ``timeout -s KILL`` and ``prlimit``, then kills leftovers and removes the dir.
Fetched files come back through a second exec (``tar -c``). The container goes back to the
pool, or is replaced when it died, was OOM-killed or would not come clean.

``mode="cold"`` starts a brand-new container for every run and removes it afterwards: the
``docker run --rm``-per-call baseline the benchmark compares against.

Start an engine and build the image with ``scripts/start_dockerd.sh`` and
``scripts/build_sandbox_image.sh``.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from pathlib import Path
from typing import Any

from agentgym.sandbox import RunResult, RunStatus, Sandbox, SandboxLimits, SandboxUnavailable

from ._docker_exec import exec_run
from ._docker_pool import ENV, UID, PoolKey, create_container, get_pool, reap_leaked
from ._files import pack_files, unpack_files
from ._script import KILL_LEFTOVERS, build_script, classify, fetch_script

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
    """Runs each command by ``docker exec`` in a pooled container (see the module docstring).

    ``pool_size`` containers per distinct container-level limits are kept warm and shared by
    every DockerSandbox of the process; ``close`` leaves them for the next user, and
    :func:`agentgym.sandboxes.shutdown_pools` (also run at exit) removes them.
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
        base_url: str | None = None,
    ) -> None:
        super().__init__(limits)
        if mode not in ("warm", "cold"):
            raise ValueError(f"mode must be 'warm' or 'cold', not {mode!r}")
        self.client = _client(base_url)
        try:
            self.client.api.inspect_image(image)
        except Exception as e:
            raise SandboxUnavailable(
                f"docker backend: image {image!r} not found; build it with "
                "scripts/build_sandbox_image.sh"
            ) from e
        self.image = image
        self.mode = mode
        self._pool_size = pool_size
        self._max_pool_size = max_pool_size
        self.last_container_id: str | None = None
        """The container of the latest run (for tests and debugging)."""
        self.last_container_replaced = False
        """Whether the latest run's container was discarded instead of going back to the pool."""
        if mode == "warm":
            get_pool(self.client, PoolKey.of(self.client, image, self.limits), pool_size,
                     max_pool_size)  # fmt: skip
        else:
            reap_leaked(self.client)

    def _run(
        self,
        command: list[str],
        stdin: bytes,
        files: dict[str, bytes],
        fetch: list[str],
        limits: SandboxLimits,
    ) -> RunResult:
        key = PoolKey.of(self.client, self.image, limits)
        if self.mode == "cold":
            cid = create_container(self.client, key)
            try:
                return self._run_in(cid, command, stdin, files, fetch, limits)[0]
            finally:
                with contextlib.suppress(Exception):
                    self.client.api.remove_container(cid, force=True)
        pool = get_pool(self.client, key, self._pool_size, self._max_pool_size)
        cid = pool.acquire()
        healthy = False
        try:
            result, healthy = self._run_in(cid, command, stdin, files, fetch, limits)
            return result
        finally:
            self.last_container_id, self.last_container_replaced = cid, not healthy
            pool.release(cid, healthy=healthy)

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
            nproc=False, cleanup_before=True, cleanup_after=not fetch,
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
