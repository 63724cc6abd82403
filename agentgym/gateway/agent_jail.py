"""A bubblewrap jail for one external agent program (one gateway episode).

An agent program, and any code the model writes inside it, is untrusted. :class:`AgentJail`
starts it with:

- its own **pid namespace** (it sees neither the trainer nor its sibling agents in ``/proc``)
  and ipc/uts namespaces; ``--die-with-parent``: when the jail's bwrap dies, every process in
  it dies, ``setsid`` children included, so killing bwrap's process group ends the episode's
  processes whatever they did;
- a **minimal environment**: ``PATH``, ``LANG``, ``HOME``/``TMPDIR`` (a fresh per-episode
  folder) and what the caller passes (the gateway URL, the episode's agent key, the task id);
  none of the trainer's variables (its secrets, the run token);
- a **read-only view** of the system (``/usr``, the merged-usr links, a few ``/etc`` files), the
  interpreter's prefixes, the working folder and every path named on the command line; ``/tmp``,
  ``/run``, the user's home and everything else are absent, and the package folder of every
  registered env (task data, answers) is covered by an empty tmpfs;
- the loopback network shared (it must reach the gateway and the MCP server);
- ``RLIMIT_AS`` at ``memory_mb``.

Without bubblewrap (``sandbox: none``) only the environment, the per-episode key and the process
group are contained (docs/security.md says what holds then).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ..bwrap import system_binds

_ETC = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime", "/etc/ssl", "/etc/hosts",
        "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
        "/etc/ca-certificates", "/etc/mime.types")


def minimal_env(extra: dict[str, str], home: str) -> dict[str, str]:
    """The agent's whole environment: a few locale and path variables, ``home`` as HOME and
    TMPDIR, and ``extra``."""
    env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "HOME": home,
           "TMPDIR": home, "LANG": os.environ.get("LANG", "C.UTF-8"), "PYTHONUNBUFFERED": "1"}
    return {**env, **extra}


@functools.cache
def bubblewrap_works() -> str:
    """``""`` when ``bwrap`` can build an agent jail here, else why not."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return "no 'bwrap' (apt install bubblewrap)"
    try:
        done = subprocess.run([bwrap, "--unshare-pid", "--die-with-parent", *_system_args(),
                               "--proc", "/proc", "--dev", "/dev", "--", "/bin/true"],
                              capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return str(e)
    return "" if done.returncode == 0 else done.stderr.decode(errors="replace").strip()[:300]


def _system_args() -> list[str]:
    return system_binds(_ETC)


def _venv_root(path: Path) -> Path | None:
    for parent in path.parents:
        if (parent / "pyvenv.cfg").is_file():
            return parent
    return None


def _readable_paths(argv: Sequence[str], binds: Sequence[str]) -> list[str]:
    """Host paths the agent needs: interpreters' prefixes, the cwd, argv's paths, ``binds``."""
    wanted = [sys.prefix, sys.base_prefix, os.getcwd(), *binds]
    for arg in argv:
        path = Path(arg)
        if not arg.startswith("/") and not path.exists():
            continue
        if path.exists():
            wanted.append(str(path.absolute()))
            real = path.resolve()
            wanted.append(str(real))
            for p in (path.absolute(), real):
                root = _venv_root(p)
                if root is not None:
                    wanted.append(str(root))
    out: list[str] = []
    for w in sorted({os.path.abspath(w) for w in wanted}, key=len):
        if w == "/" or not os.path.exists(w):
            continue
        if not any(w == o or w.startswith(o.rstrip("/") + "/") for o in out):
            out.append(w)
    return out


def env_package_dirs() -> list[str]:
    """The folders of the packages of every registered env's entry point (their task data)."""
    from ..registry import list_envs, spec

    packages = set()
    for env_id in list_envs():
        entry = spec(env_id).entry_point
        if isinstance(entry, str) and "." in entry.split(":")[0]:
            packages.add(entry.split(":")[0].rsplit(".", 1)[0])
    found: list[str] = []
    for name in sorted(packages):
        try:
            found_spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for location in (found_spec.submodule_search_locations or []) if found_spec else []:
            real = os.path.realpath(location)
            if os.path.isdir(real) and real not in found:
                found.append(real)
    return found


class AgentJail:
    """Builds the argv, environment and limits of one jailed agent program."""

    def __init__(self, *, memory_mb: int = 8192, binds: Sequence[str] = ()) -> None:
        self.memory_mb = memory_mb
        """``RLIMIT_AS`` of every process of the agent (0: none)."""
        self.binds = tuple(binds)
        """Extra host paths the agent may read."""

    def argv(self, argv: Sequence[str], home: str) -> list[str]:
        """``argv`` inside a fresh jail whose writable folder is ``home``."""
        bwrap = shutil.which("bwrap") or "bwrap"
        args = [bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                "--new-session", *_system_args()]
        readable = _readable_paths(argv, self.binds)
        for path in readable:
            if not path.startswith("/usr/"):
                args += ["--ro-bind", path, path]
        for hidden in env_package_dirs():
            if any(hidden == r or hidden.startswith(r.rstrip("/") + "/") for r in readable):
                args += ["--tmpfs", hidden, "--remount-ro", hidden]
        args += ["--proc", "/proc", "--dev", "/dev", "--bind", home, home,
                 "--chdir", os.getcwd(), "--", *argv]
        return args

    def preexec(self) -> Callable[[], None] | None:
        """The child's set-up before exec: the address-space limit."""
        if not self.memory_mb:
            return None
        limit = self.memory_mb * 1024 * 1024

        def limit_memory() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        return limit_memory


__all__ = ["AgentJail", "bubblewrap_works", "env_package_dirs", "minimal_env"]
