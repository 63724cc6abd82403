"""Where a terminal episode's commands run: the bubblewrap shell (no Docker) or a container.

A backend turns a :class:`~.harbor.HarborTask` into a *session*: a starting filesystem state
and an ``exec(command, state, timeout_s)`` that returns the command's output and the new
state. States are opaque bytes the env keeps between commands (a tar for bubblewrap), so an
episode can be forked by copying them, and the verifier runs on a copy with ``tests/`` added.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import subprocess
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from agentgym.errors import InfrastructureError, TaskError
from agentgym.sandbox import SandboxLimits

from .dockerfile import BuildPlan, build_plan
from .harbor import HarborTask

logger = logging.getLogger(__name__)

DEFAULT_ROOTS = ("root", "tmp", "logs", "solution")
"""Persisted besides the task's own directories: ``$HOME``, ``/tmp``, ``/logs`` (the
verifier's output) and ``/solution`` (where the oracle puts ``solve.sh``)."""


class Session(Protocol):
    """A task's shell: a starting state and commands over states."""

    initial_state: bytes
    workdir: str

    def exec(self, command: str, *, state: bytes, timeout_s: float,
             files: dict[str, bytes] | None = None,
             env: dict[str, str] | None = None, fetch: tuple[str, ...] | None = None) -> Any:
        """Run ``command`` over ``state``; returns a ``ShellOutput``-like object."""

    def open_live(self, state: bytes, owner: object = None) -> Any:
        """A live shell holding ``state`` (``LiveShell``), or None where the backend has none
        (each command then goes through :meth:`exec`)."""


@dataclass
class Limits:
    """Per-episode resource limits (from ``[environment]``, capped by the env's own)."""

    memory_mb: int = 1024
    disk_mb: int = 128
    pids: int = 128
    cpus: float = 1.0
    output_bytes: int = 65536


class TarSession:
    """A task on a tar-state shell: the Dockerfile's plan built once, then every command in a
    fresh sandbox (bubblewrap) or a wiped container (docker) over the episode's state tar."""

    backend = "bubblewrap"

    def __init__(self, task: HarborTask, limits: Limits, allow_base: tuple[str, ...] = (),
                 image: str | None = None, shared: dict[Any, Any] | None = None,
                 hide: tuple[str, ...] = ()) -> None:
        self.image = image
        plan = self._plan(task, allow_base)
        self._check_packages(task, plan)
        self.plan = plan
        self.workdir = plan.workdir
        self.limits = SandboxLimits(
            memory_mb=limits.memory_mb, disk_mb=limits.disk_mb, pids=limits.pids,
            cpus=limits.cpus, output_bytes=limits.output_bytes,
            file_size_mb=max(1, limits.disk_mb),
        )
        self.roots = tuple(sorted(plan.roots | set(DEFAULT_ROOTS)))
        self.shared = {} if shared is None else shared
        """Containers by (image, roots, limits), shared by the sessions of one env (which runs
        one episode at a time): one container per env, not per task."""
        self._shells: dict[tuple[tuple[str, str], ...], Any] = {}
        self._env = plan.env
        self._hide = (str(task.path), *hide)
        """Host folders the bubblewrap shell shows empty should a bound path (``/usr``) hold
        them: the task's own and the folder of tasks it came from."""
        self.initial_state = self._initial_state(task, plan)

    def _plan(self, task: HarborTask, allow_base: tuple[str, ...]) -> BuildPlan:
        """How the task's starting filesystem is made (its Dockerfile as a plan)."""
        return build_plan(task.dockerfile, task.environment_files, allow_base)

    def _initial_state(self, task: HarborTask, plan: BuildPlan) -> bytes:
        return _build(task, plan, self)

    def _check_packages(self, task: HarborTask, plan: BuildPlan) -> None:
        missing = missing_packages(tuple(plan.packages))
        if missing:
            raise TaskError(f"{task.name}: the Dockerfile installs {', '.join(missing)}, which "
                            "this host lacks; the bubblewrap backend uses the host's /usr "
                            f"(apt install {' '.join(missing)}, or use backend='docker')")

    def _new_shell(self, env: dict[str, str]) -> Any:
        from agentgym.sandboxes.bubblewrap_session import BubblewrapShell

        return BubblewrapShell(self.limits, roots=self.roots, scratch=("tests",),
                               workdir=self.workdir, env=env, hide=self._hide)

    def _shell(self, env: dict[str, str] | None) -> Any:
        key = tuple(sorted({**self._env, **(env or {})}.items()))
        if key not in self._shells:
            self._shells[key] = self._new_shell(dict(key))
        return self._shells[key]

    def exec(self, command: str, *, state: bytes, timeout_s: float,
             files: dict[str, bytes] | None = None,
             env: dict[str, str] | None = None, fetch: tuple[str, ...] | None = None) -> Any:
        """Run ``command`` with ``bash -c`` over ``state`` (see ``BubblewrapShell.exec``);
        ``fetch``: the roots to bring back (bubblewrap; the docker shell brings all)."""
        extra = {"fetch": fetch} if fetch is not None and self.backend == "bubblewrap" else {}
        return self._shell(env).exec(command, state=state, timeout_s=timeout_s, files=files,
                                     **extra)

    def open_live(self, state: bytes, owner: object = None) -> Any:
        """One sandbox for a whole episode, ``state`` loaded in its tmpfs roots
        (``sandboxes/bubblewrap_live``); raises ``SandboxGone`` when it cannot start."""
        from agentgym.sandboxes.bubblewrap_live import LiveShell

        return LiveShell(self._shell(None), state, owner=owner)

    def close(self) -> None:
        """Release the shells (the docker ones hold a container)."""
        for shell in [*self._shells.values(), *self.shared.values()]:
            close = getattr(shell, "close", None)
            if close is not None:
                close()
        self._shells.clear()
        self.shared.clear()


BubblewrapSession = TarSession


class DockerSession(TarSession):
    """The same over a locked-down container per session (``sandboxes/_docker_session``); the
    packages of the Dockerfile's ``apt-get install`` lines must be in ``image``. ``warm``:
    episode containers started ahead per image and settings (0: each started on demand).
    ``build``: True builds the task's own image from its ``environment/`` (``image_build``:
    ``image`` is then its base), None (the default) only when the plan refuses the Dockerfile
    (``pip``, ``curl``...), False never."""

    backend = "docker"

    def __init__(self, task: HarborTask, limits: Limits, allow_base: tuple[str, ...] = (),
                 image: str | None = None, shared: dict[Any, Any] | None = None,
                 hide: tuple[str, ...] = (), warm: int = 1, build: bool | None = None) -> None:
        self.warm = max(0, int(warm))
        self.build = build
        self.built: str | None = None
        """The tag of the task's own image, when one was built (or reused)."""
        super().__init__(task, limits, allow_base, image, shared, hide)
        self._pool()  # the first episode's container starts now, in the background

    def _plan(self, task: HarborTask, allow_base: tuple[str, ...]) -> BuildPlan:
        if self.build is not True:
            try:
                return super()._plan(task, allow_base)
            except TaskError:
                if self.build is False:
                    raise
        return self._build_image(task, allow_base)

    def _build_image(self, task: HarborTask, allow_base: tuple[str, ...]) -> BuildPlan:
        from .image_build import BASE_IMAGE, task_image

        plan = task_image(task, allow_base, self.image or BASE_IMAGE)
        self.image = self.built = plan.base
        return plan

    def _initial_state(self, task: HarborTask, plan: BuildPlan) -> bytes:
        if self.built is None:
            return super()._initial_state(task, plan)
        from . import image_build

        roots = tuple(sorted(plan.roots | set(DEFAULT_ROOTS)))
        return image_build.cached_state(self.built, roots, self.limits.disk_mb << 20)

    def _pool(self) -> Any:
        """The warm pool of this session's live containers (joined once per env and
        settings: the lease is closed with the env's shared containers), or None."""
        if not self.warm:
            return None
        from agentgym.sandboxes._docker_live import LiveKey, WarmLease

        shell = self._shell(None)
        key = ("warm", LiveKey.of(shell))
        if key not in self.shared:
            self.shared[key] = WarmLease(shell, spares=self.warm)
        return self.shared[key].pool

    def _check_packages(self, task: HarborTask, plan: BuildPlan) -> None:
        pass  # checked inside the image by the build (see _build)

    def open_live(self, state: bytes, owner: object = None) -> Any:
        """A container of its own for the episode (from the warm pool: started ahead, used
        once), ``state`` loaded, whose PID 1 serves its commands (``sandboxes/_docker_live``);
        the env's shared container still builds and runs the verifier."""
        from agentgym.sandboxes._docker_live import DockerLiveShell

        return DockerLiveShell(self._shell(None), state, owner=owner, pool=self._pool())

    def _new_shell(self, env: dict[str, str]) -> Any:
        from agentgym.sandboxes._docker_session import DEFAULT_IMAGE, DockerShell

        image = self.image or DEFAULT_IMAGE
        key = (image, self.roots, self.limits)
        if key not in self.shared:
            self.shared[key] = DockerShell(self.limits, roots=self.roots, scratch=("tests",),
                                           workdir=self.workdir, env={}, image=image)
        shell = self.shared[key].share(env)
        shell.workdir = self.workdir
        return shell


@functools.lru_cache(maxsize=256)
def missing_packages(packages: tuple[str, ...]) -> list[str]:
    """The ``packages`` not installed on this host (by ``dpkg-query``; all of them when there is
    no dpkg)."""
    if not packages:
        return []
    try:
        done = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Status}\\n", *packages],
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return list(packages)
    ok = {line.split()[0].split(":")[0] for line in done.stdout.splitlines()
          if line.endswith("install ok installed")}
    return [p for p in packages if p not in ok]


_BUILDS: dict[str, bytes] = {}
_BUILD_LOCK = threading.Lock()


PACKAGES_MISSING = 97
"""Exit status of a build whose image lacks a package of the Dockerfile."""


def _build(task: HarborTask, plan: BuildPlan, session: TarSession) -> bytes:
    """The starting state: ``COPY`` files, then the ``RUN`` lines (cached per plan)."""
    key = hashlib.sha256(repr((session.backend, session.image, sorted(plan.files.items()),
                               plan.run, sorted(plan.env.items()), sorted(plan.roots),
                               plan.packages)).encode()).hexdigest()
    with _BUILD_LOCK:
        if key in _BUILDS:
            return _BUILDS[key]
    lines = ["set -e"]
    if plan.packages and session.backend == "docker":  # bubblewrap checked the host's
        lines.append(
            "m=; for p in " + " ".join(plan.packages) + "; do dpkg-query -W -f='${Status}' "
            "\"$p\" 2>/dev/null | grep -q 'install ok installed' || m=\"$m $p\"; done; "
            f"if [ -n \"$m\" ]; then echo \"missing packages:$m\" >&2; exit {PACKAGES_MISSING}; "
            "fi")
    script = "\n".join(lines + plan.run)
    out = session.exec(script, state=b"", timeout_s=task.build_timeout_s,
                       files=dict(plan.files))
    if out.error:
        raise InfrastructureError(f"building {task.name}: {out.error}")
    if out.exit_code == PACKAGES_MISSING:
        raise TaskError(f"{task.name}: the {session.backend} backend's image lacks "
                        f"{out.stderr.strip().partition(':')[2].strip()}: pass "
                        "build_image=True to build the task's own image (docs/terminal.md)")
    if out.exit_code != 0 or out.state is None:
        why = "timed out" if out.timed_out else f"exit status {out.exit_code}"
        raise TaskError(f"building {task.name} on the {session.backend} backend failed ({why}): "
                        f"{(out.stderr or out.stdout)[-800:]}")
    with _BUILD_LOCK:
        _BUILDS[key] = out.state
    return out.state


BACKENDS = ("bubblewrap", "docker")
"""Backends :func:`open_session` knows."""


def open_session(task: HarborTask, backend: str, limits: Limits,
                 allow_base: tuple[str, ...] = (), image: str | None = None,
                 shared: dict[Any, Any] | None = None, hide: tuple[str, ...] = (),
                 warm: int = 1, build: bool | None = None) -> Session:
    """A session of ``task`` on ``backend``; raises :class:`TaskError` for a task the backend
    cannot run and ``SandboxUnavailable`` for a backend missing here. ``hide``: host folders
    (besides the task's own) its commands must not see, such as the folder of tasks; ``warm``:
    the docker backend's episode containers started ahead (0: on demand); ``build``: whether
    the docker backend builds the task's own image (None: when the plan cannot run it)."""
    if task.allow_internet:
        logger.info("task %s allows internet; the %s backend has none", task.name, backend)
    if backend == "bubblewrap":
        if build:
            raise TaskError("build_image=True needs backend='docker' (the bubblewrap backend "
                            "has no images)")
        return TarSession(task, limits, allow_base, hide=hide)
    if backend == "docker":
        return DockerSession(task, limits, allow_base, image, shared, hide, warm, build)
    raise TaskError(f"unknown terminal backend {backend!r}; known: {', '.join(BACKENDS)}")


__all__ = ["BACKENDS", "BubblewrapSession", "DockerSession", "Limits", "Session", "TarSession",
           "missing_packages", "open_session"]
