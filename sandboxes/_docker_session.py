"""The terminal family's Docker mode: the same tar-backed shell as ``bubblewrap_session``, in a
locked-down container.

One container per env (shared by its tasks' sessions, as the env runs one episode at a time):
the pool's reaper as PID 1 (it ignores signals and reaps orphans), uid 65534, no network, a
read-only root, no capabilities, memory/pids/CPU limits. Every persisted root (``/app``,
``/root``, ``/tmp``...) and scratch directory is a size-capped tmpfs owned by uid 65534. Each
command is one ``docker exec`` of a wrapper that kills what is left, wipes those mounts, unpacks
the episode's state tar from stdin, runs the command under ``timeout -s KILL`` and ``prlimit``,
kills every process the command left (``kill -9 -1`` spares only PID 1 and the wrapper), and
writes one tar to stdout holding the command's capped stdout, stderr, exit status and the new
state tar. So an episode sees exactly the filesystem it built, whatever ran in the container
before, and the host only parses tar streams.
"""

from __future__ import annotations

import contextlib
import io
import logging
import shlex
import tarfile
import time
from typing import Any

from agentgym.sandbox import SandboxLimits, SandboxUnavailable

from ._docker_exec import exec_run
from ._docker_pool import REAPER, owner_labels
from ._script import KILL_LEFTOVERS, prlimit_args
from .bubblewrap_session import STATE, TAR_SLACK_S, ShellOutput, add_files

logger = logging.getLogger(__name__)

DEFAULT_IMAGE = "agentgym-terminal:bookworm"
"""The image ``scripts/build_sandbox_image.sh`` builds with the terminal tasks' packages (see
docs/terminal.md); any Debian image with bash, tar and coreutils works."""
UID = "65534:65534"
_IO = "/work/.io"


def _wrapper(roots: tuple[str, ...], scratch: tuple[str, ...], limits: SandboxLimits) -> str:
    q = shlex.quote
    dirs = " ".join(q("/" + d) for d in (*roots, *scratch))
    limit = " ".join(q(a) for a in prlimit_args(limits, nproc=False))
    cap = limits.output_bytes
    return "\n".join([
        "umask 022",
        KILL_LEFTOVERS,
        f"for d in {dirs} /work; do chmod -R u+rwX \"$d\" 2>/dev/null; "
        "find \"$d\" -mindepth 1 -delete 2>/dev/null; done",
        f"mkdir -p {_IO} || exit 125",
        # $1 deadline, $2 start directory, $3 command, $4 bytes of state tar on stdin
        f'if [ "$4" -gt 0 ]; then tar -x -p --no-overwrite-dir -f - -C / 2>{_IO}/tarerr '
        f"|| {{ cat {_IO}/tarerr >&2; exit 125; }}; fi",
        "(echo 1000 >/proc/self/oom_score_adj; cd \"$2\" 2>/dev/null || cd /; "
        f'exec timeout -s KILL "$1" prlimit {limit} -- /bin/bash -c "$3" '
        f">{_IO}/out.all 2>{_IO}/err.all </dev/null)",
        f"echo $? > {_IO}/rc",
        KILL_LEFTOVERS,
        f"cd {_IO} && for s in out err; do head -c {cap} $s.all > $s; "
        f"[ \"$(stat -c %s $s.all)\" -gt {cap} ] && touch trunc; rm -f $s.all; done",
        # the roots' contents, not the mount points themselves (root's; tar could not restore
        # their mode): the archive is still relative to /
        f"cd / && find {' '.join(q(r) for r in roots)} -mindepth 1 -maxdepth 1 -print0 "
        f"| tar -c --null -T - -f {_IO}/{STATE} 2>/dev/null",
        f"cd {_IO} && tar -c -f - -- *",
    ])


class DockerShell:
    """Runs shell commands over a persistent tar-backed filesystem in one kept container."""

    name = "docker-shell"

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        roots: tuple[str, ...] = ("app", "root", "tmp", "logs"),
        scratch: tuple[str, ...] = ("tests",),
        env: dict[str, str] | None = None,
        workdir: str = "/app",
        image: str = DEFAULT_IMAGE,
        client: Any = None,
        container_id: str | None = None,
    ) -> None:
        try:
            import docker

            self.client = client or docker.from_env()
            self.client.api.inspect_image(image)
        except Exception as e:  # no SDK, no engine or no image: say which
            raise SandboxUnavailable(f"docker terminal backend: {type(e).__name__}: {e}") from e
        self.limits = limits or SandboxLimits()
        self.roots = tuple(dict.fromkeys(roots))
        self.scratch = tuple(d for d in dict.fromkeys(scratch) if d not in self.roots)
        self.env = {"HOME": "/root", "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                    **(env or {})}
        self.workdir = workdir
        self.image = image
        self._script = _wrapper(self.roots, self.scratch, self.limits)
        self._owns = container_id is None
        """A shell given another's container (same roots and limits) leaves it to its owner."""
        self.container_id = container_id or self._start()

    def _start(self) -> str:
        api = self.client.api
        created = api.create_container(
            self.image, ["python3", "-c", REAPER], user=UID, hostname="sandbox",
            working_dir="/work", labels=owner_labels(), network_disabled=True,
            host_config=self.host_config(),
        )  # fmt: skip
        cid = str(created["Id"])
        api.start(cid)
        return cid

    def host_config(self, extra_mb: int = 0) -> Any:
        """The locked-down container settings (no network, read-only root, no capabilities,
        memory (plus ``extra_mb``), pids and CPU limits, the size-capped tmpfs mounts)."""
        api = self.client.api
        opts = f"size={self.limits.disk_mb}m,mode=1777,exec,uid=65534,gid=65534"
        tmpfs = {f"/{d}": opts for d in (*self.roots, *self.scratch, "work")}
        memory = f"{self.limits.memory_mb + 64 + extra_mb}m"
        host_config = api.create_host_config(
            network_mode="none", read_only=True, cap_drop=["ALL"],
            security_opt=["no-new-privileges"], mem_limit=memory, memswap_limit=memory,
            nano_cpus=int(self.limits.cpus * 1e9), pids_limit=self.limits.pids + 8,
            tmpfs=tmpfs, ulimits=[{"Name": "core", "Soft": 0, "Hard": 0}], auto_remove=True,
        )  # fmt: skip
        return host_config

    def exec(
        self, command: str, *, state: bytes, timeout_s: float,
        files: dict[str, bytes] | None = None, limits: SandboxLimits | None = None,
    ) -> ShellOutput:
        """Run ``command`` with ``bash -c`` over ``state``, as ``BubblewrapShell.exec``."""
        if files:
            state = add_files(state, files)
        argv = ["/bin/bash", "-c", self._script, "shell", f"{timeout_s:g}", self.workdir,
                command, str(len(state))]
        deadline = time.monotonic() + timeout_s + TAR_SLACK_S
        try:
            got = exec_run(self.client.api, self.container_id, argv, data=state,
                           cap=self.limits.disk_mb * 1024 * 1024 + (1 << 20), deadline=deadline,
                           user=UID, environment=self.env)
        except Exception as e:  # the engine or the container is gone: not the command's fault
            return ShellOutput("", "", None, False, False, None, error=f"docker exec: {e}")
        if got.deadline_hit:
            self._kill_all()
            return ShellOutput("", "", None, True, False, None)
        if got.exit_code == 125:
            return ShellOutput("", got.stderr.text(), None, False, False, None,
                               error="the container could not load the state")
        return _parse(bytes(got.stdout.data), timeout_s)

    def _kill_all(self) -> None:
        with contextlib.suppress(Exception):
            exec_run(self.client.api, self.container_id, ["/bin/bash", "-c", KILL_LEFTOVERS],
                     data=b"", cap=1024, deadline=time.monotonic() + 10, user=UID,
                     environment=self.env)

    def share(self, env: dict[str, str]) -> DockerShell:
        """A shell over the same container with other environment variables."""
        return DockerShell(self.limits, roots=self.roots, scratch=self.scratch, env=env,
                           workdir=self.workdir, image=self.image, client=self.client,
                           container_id=self.container_id)

    def close(self) -> None:
        """Remove the container (if this shell started it)."""
        if not self._owns:
            return
        with contextlib.suppress(Exception):
            self.client.api.remove_container(self.container_id, force=True)


def _parse(raw: bytes, timeout_s: float) -> ShellOutput:
    parts: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            for member in tar:
                handle = tar.extractfile(member) if member.isreg() else None
                if handle is not None:
                    parts[member.name.removeprefix("./")] = handle.read()
    except (tarfile.TarError, EOFError, OSError) as e:
        return ShellOutput("", "", None, False, False, None, error=f"bad reply: {e}")
    try:
        rc = int(parts.get("rc", b"").strip())
    except ValueError:
        return ShellOutput("", "", None, False, False, None, error="no exit status")
    timed_out = rc == 137  # timeout -s KILL
    return ShellOutput(
        stdout=parts.get("out", b"").decode("utf-8", "replace"),
        stderr=parts.get("err", b"").decode("utf-8", "replace"),
        exit_code=None if timed_out else rc, timed_out=timed_out, truncated="trunc" in parts,
        state=parts.get(STATE),
    )


__all__ = ["DEFAULT_IMAGE", "DockerShell"]
