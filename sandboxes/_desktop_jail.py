"""The jail of a desktop: who its processes run as and what they can see.

Everything the agent can reach through the display runs unprivileged:

- **A host uid per desktop.** When the owner is root, each desktop takes its own unprivileged
  uid (:data:`BASE_UID` + n), held by an ``flock`` on ``<state dir>/uids/<n>.lock`` for the
  desktop's life (the reaper watcher inherits the lock, so a uid is free again only once its
  processes are gone). ``setpriv`` switches to it with no supplementary groups, an empty
  capability bounding set and ``no_new_privs``; ``prlimit --nproc`` caps the tasks (processes
  and threads) that uid can hold, so a fork bomb stops at :attr:`Jail.max_processes`, and
  ``--fsize`` the size of any one file it writes (:attr:`Jail.max_file_bytes`).
  The X server, x11vnc and the accessibility bus run as that uid on the host (they must be
  reachable from the host); the window manager and every app also go into bubblewrap.
- **bubblewrap** (``--unshare-all`` with a user namespace mapping the same uid, ``--cap-drop
  ALL``, ``--disable-userns``, ``--new-session``): no network, own pid,
  IPC and UTS namespaces, a root built from read-only ``/usr`` and ``/etc``, a fresh ``/tmp``,
  the desktop's own X socket and cookie, its home and runtime folders, and nothing else of the
  host (no ``/root``, ``/home``, project checkout or other desktops). Not ``--die-with-parent``:
  its parent-death signal fires when the *thread* that started the jail ends, which killed the
  desktops an env built in a worker thread; the desktop's label and uid reap the jails instead,
  and killing a jail's pid 1 ends everything in it.
- **X authority.** Xvfb reads a per-desktop ``MIT-MAGIC-COOKIE-1`` (``-auth``, written with
  ``xauth``); jailed clients present it. The host's own uid is admitted by ``xhost
  +si:localuser`` so the env's in-process X clients (python-xlib, mss) need no cookie.

Without root the uid switch and the process cap are skipped (bubblewrap's user namespace still
maps the caller's own uid); see docs/gui.md, "Containment".
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import secrets
import shlex
import shutil
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentgym.private_dirs import private_dir

from ._masks import mask_args

BASE_UID = 2_100_000_000
"""First host uid handed to desktops (far from login, system and subordinate-id ranges)."""
UID_SLOTS = 4096
"""How many desktop uids exist."""
SHARE_DIR = "/opt/agentgym"
"""Where the jail shows the files of :attr:`Jail.share` (``<SHARE_DIR>/<file name>``)."""
HIDDEN_PROGRAMS = ("import", "import-im6", "import-im6.q16", "import-im7", "magick")
"""Programs the jail does not offer (each shown as an empty, unrunnable file): ImageMagick's
``import`` grabs the pointer to let the user pick a window, so Python typed into a shell
(``import os``) froze the desktop's input until the backend gave up and the episode aborted.
No task needs them. Hidden by name and at the file their names resolve to, so neither the
name nor a full path runs them."""
OPENBOX_RC = Path("/etc/xdg/openbox/rc.xml")
OB_NS = "http://openbox.org/3.4/rc"


def jail_is_root() -> bool:
    """Whether desktops get their own host uid (the owner is root)."""
    return os.geteuid() == 0


def missing_tools(*, jailed: bool) -> list[str]:
    """The programs the desktop's X authority (and, ``jailed``, its jail) need but are absent."""
    need = ["xauth", "xhost"]
    if jailed:
        need += ["bwrap", "prlimit"]
        if jail_is_root():
            need.append("setpriv")
    return [tool for tool in need if shutil.which(tool) is None]


def allocate_uid(state_dir: Path) -> tuple[int, int]:
    """Take a free desktop uid; return ``(uid, fd)`` where ``fd`` holds its lock (close frees)."""
    folder = private_dir(private_dir(state_dir) / "uids")
    start = os.getpid() % UID_SLOTS
    for i in range(UID_SLOTS):
        slot = (start + i) % UID_SLOTS
        fd = os.open(folder / f"{slot}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return BASE_UID + slot, fd
    raise RuntimeError("no free desktop uid")


def write_cookie(path: Path) -> None:
    """A fresh ``MIT-MAGIC-COOKIE-1`` for any display (``FamilyWild``) in ``path``, via xauth."""
    if shutil.which("xauth") is None:
        raise FileNotFoundError("the desktop's X authority needs xauth (apt install xauth)")
    name = b"MIT-MAGIC-COOKIE-1".hex()
    line = f"ffff 0000 0000 {len(name) // 2:04x} {name} 0010 {secrets.token_hex(16)}\n"
    subprocess.run(["xauth", "-q", "-f", str(path), "nmerge", "-"], input=line, text=True,
                   check=True, capture_output=True, timeout=10)


def admit_host_user(display: str, xauthority: Path) -> None:
    """Let the owner's own uid connect without the cookie (``xhost +si:localuser``)."""
    user = pwd.getpwuid(os.getuid()).pw_name
    subprocess.run(["xhost", f"+si:localuser:{user}"], check=True, capture_output=True,
                   env={"DISPLAY": display, "XAUTHORITY": str(xauthority),
                        "PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=10)


def write_openbox_config(path: Path, menu: Path, menu_ref: str | None = None) -> None:
    """An openbox ``rc.xml`` without a root menu or any ``Execute`` binding.

    Starts from the system's rc.xml (focus, move and resize bindings keep working), drops the
    ``Root`` mouse context (the desktop menus) and every key binding that runs a program, and
    points the menu file at an empty menu (written to ``menu``, named ``menu_ref`` in the
    config: where the window manager sees it).
    """
    ET.register_namespace("", OB_NS)
    ns = {"ob": OB_NS}
    if OPENBOX_RC.is_file():
        tree = ET.parse(OPENBOX_RC)
        root = tree.getroot()
    else:
        root = ET.Element(f"{{{OB_NS}}}openbox_config")
        tree = ET.ElementTree(root)
    for mouse in root.findall("ob:mouse", ns):
        for ctx in mouse.findall("ob:context", ns):
            if ctx.get("name") == "Root":
                mouse.remove(ctx)
    for keyboard in root.findall("ob:keyboard", ns):
        for bind in keyboard.findall("ob:keybind", ns):
            if bind.find(".//ob:action[@name='Execute']", ns) is not None:
                keyboard.remove(bind)
    for old in root.findall("ob:menu", ns):
        root.remove(old)
    menu_el = ET.SubElement(root, f"{{{OB_NS}}}menu")
    ET.SubElement(menu_el, f"{{{OB_NS}}}file").text = menu_ref or str(menu)
    menu.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                    f'<openbox_menu xmlns="{OB_NS}"></openbox_menu>\n')
    tree.write(path, encoding="utf-8", xml_declaration=True)


def open_to_all(path: Path) -> bool:
    """Whether any uid can reach ``path`` (every folder above it is world-searchable)."""
    try:
        path = path.resolve()
        return all(os.stat(p).st_mode & stat.S_IXOTH for p in (path, *path.parents)
                   if p.is_dir())
    except OSError:
        return False


def shared_path(host: str | Path) -> str:
    """Where a file of :attr:`Jail.share` appears inside the jail."""
    return f"{SHARE_DIR}/{Path(host).name}"


def hidden_paths(programs: Sequence[str] = HIDDEN_PROGRAMS) -> list[str]:
    """The files of ``programs`` under ``/usr`` (each name found on the system's path, and the
    file it resolves to), for the jail to cover with ``/dev/null``."""
    found: list[str] = []
    for name in programs:
        for folder in ("/usr/local/bin", "/usr/bin", "/usr/sbin"):
            path = Path(folder) / name
            if path.exists():
                found.append(str(path.resolve()))
    return [p for p in dict.fromkeys(found) if p.startswith("/usr/") and Path(p).is_file()]


def python_roots() -> list[str]:
    """Folders of the base interpreter that a jailed app needs, outside ``/usr``: bound when
    every uid can reach them (an interpreter under ``/root`` cannot be, see :func:`app_python`)."""
    root = Path(sys.base_prefix).resolve()
    if str(root).startswith("/usr/") or not root.is_dir() or not open_to_all(root):
        return []
    return [str(root)]


def app_python() -> str:
    """An interpreter a jailed app can run: the base interpreter (never a virtual
    environment's) where every uid can reach it, else the system's ``/usr/bin/python3``."""
    base = Path(getattr(sys, "_base_executable", "") or sys.executable)
    if str(base.resolve()).startswith("/usr/") or open_to_all(Path(sys.base_prefix)):
        return str(base)
    return "/usr/bin/python3" if Path("/usr/bin/python3").exists() else "python3"


@dataclass
class Jail:
    """How to start one desktop's processes; see the module docstring."""

    uid: int | None
    """Host uid of the desktop's processes, or None to keep the caller's (not root)."""
    display_socket: str
    """The desktop's X socket (``/tmp/.X11-unix/X<n>``); set once Xvfb is up."""
    xauthority: Path
    home: Path
    runtime: Path
    """``XDG_RUNTIME_DIR`` of the apps (writable by them)."""
    bus: Path
    """The accessibility bus socket's folder: writable in the service jail only, read-only for
    apps, so an app cannot swap the socket for a symlink the host would then connect to."""
    private: Path
    """Bound only into launches with ``private=True`` (a task app's state the scorer reads)."""
    etc: Path
    """Holds the ``passwd`` and ``group`` shown to jailed processes."""
    share: Sequence[str] = ()
    """Host files bound read-only at :func:`shared_path` (the project's Tk apps): the jail sees
    those files, not the folders of the checkout they live in."""
    max_processes: int = 512
    """Tasks (processes and threads) the desktop's uid may hold (root only)."""
    max_file_bytes: int = 256 * 1024 * 1024
    """Largest file a desktop process may write (``RLIMIT_FSIZE``)."""
    bwrap: str = field(default_factory=lambda: shutil.which("bwrap") or "bwrap")
    cgroup_procs: tuple[str, ...] = ()
    """``cgroup.procs`` files of the desktop's cgroup (one per controller): every process the
    jail starts enters it first, so the desktop's memory is capped as a whole."""
    max_memory_bytes: int | None = None
    """Without a cgroup: each process's address space (``RLIMIT_AS``); None: no cap."""

    def enter_cgroup(self) -> list[str]:
        """The argv prefix that moves the process (and so all it starts) into the desktop's
        cgroup before it runs; empty without one. It runs on the host's file system, where the
        cgroup's files are (a jail's mounts do not hold them)."""
        if not self.cgroup_procs:
            return []
        files = " ".join(shlex.quote(f) for f in self.cgroup_procs)
        return ["sh", "-c", f'echo $$ | tee {files} >/dev/null && exec "$@"', "sh"]

    def host_argv(self, argv: Sequence[str], *, enter: bool = True) -> list[str]:
        """``argv`` run as the desktop's uid, capability-free, with the process and memory
        caps (in the desktop's cgroup where there is one; ``enter=False`` when the caller
        entered it already, outside a jail)."""
        limits = [f"--fsize={self.max_file_bytes}:{self.max_file_bytes}"]
        if self.max_memory_bytes is not None and not self.cgroup_procs:
            limits.append(f"--as={self.max_memory_bytes}:{self.max_memory_bytes}")
        prefix = self.enter_cgroup() if enter else []
        if self.uid is None:
            return [*prefix, "prlimit", *limits, "--", *argv]
        return [*prefix, "setpriv", f"--reuid={self.uid}", f"--regid={self.uid}",
                "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
                "--", "prlimit", f"--nproc={self.max_processes}:{self.max_processes}", *limits,
                "--", *argv]

    def _mounts(self, *, service: bool = False) -> list[str]:
        """The jail's file system: read-only system, fresh /tmp, the desktop's own folders.

        A ``service`` (bubblewrap run as root) gets no interpreter or shared files, and its
        folders are made searchable explicitly: privileged bubblewrap creates mount points'
        parents with mode 0700."""
        args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
        for name in ("bin", "lib", "lib64", "sbin", "lib32"):
            top = Path("/") / name
            if top.is_symlink():
                args += ["--symlink", os.readlink(top), str(top)]
            elif top.is_dir():
                args += ["--ro-bind", str(top), str(top)]
        fonts = Path("/var/cache/fontconfig")
        if fonts.is_dir():
            args += ["--ro-bind", str(fonts), str(fonts)]
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                 "--ro-bind", str(self.etc / "passwd"), "/etc/passwd",
                 "--ro-bind", str(self.etc / "group"), "/etc/group"]
        if service:
            args += ["--perms", "0711", "--dir", str(self.home.parent),
                     "--perms", "0755", "--dir", str(self.xauthority.parent),
                     "--perms", "0755", "--dir", "/tmp/.X11-unix"]
        else:
            for program in hidden_paths():
                args += ["--ro-bind", "/dev/null", program]
            for extra in python_roots():
                args += ["--ro-bind", extra, extra]
            bound = [args[i + 1] for i, a in enumerate(args) if a == "--ro-bind"]
            args += mask_args(bound)  # agentgym's own files, wherever a bind exposes them
            for extra in self.share:
                args += ["--ro-bind", extra, shared_path(extra)]
        if self.display_socket:
            args += ["--ro-bind", self.display_socket, self.display_socket]
        return [*args, "--ro-bind", str(self.xauthority), str(self.xauthority),
                "--bind", str(self.home), str(self.home),
                "--bind", str(self.runtime), str(self.runtime),
                "--bind" if service else "--ro-bind", str(self.bus), str(self.bus)]

    def sandbox_argv(self, argv: Sequence[str], *, private: bool = False,
                     workdir: Path | None = None, chdir: Path | None = None) -> list[str]:
        """``argv`` in bubblewrap (see the module docstring), run as the desktop's uid."""
        uid = self.uid if self.uid is not None else os.getuid()
        gid = self.uid if self.uid is not None else os.getgid()
        args = [self.bwrap, "--unshare-all", "--unshare-user", "--disable-userns",
                "--uid", str(uid), "--gid", str(gid), "--cap-drop", "ALL", "--new-session",
                *self._mounts()]
        if private:
            args += ["--bind", str(self.private), str(self.private),
                     "--setenv", "AGENTGYM_STATE_DIR", str(self.private)]
        if workdir is not None:
            args += ["--bind", str(workdir), str(workdir)]
        args += ["--chdir", str(chdir or workdir or self.home), "--", *argv]
        return self.host_argv(args)

    def service_argv(self, argv: Sequence[str]) -> list[str]:
        """``argv`` for a desktop service the host must reach as itself (the accessibility
        bus): the jail's file system, network, pid and IPC namespaces, but no user namespace
        (a host client's uid would show as ``nobody`` there and fail D-Bus authentication);
        bubblewrap starts as root and ``setpriv`` drops to the desktop's uid inside. Without
        root: :meth:`host_argv`."""
        if self.uid is None:
            return self.host_argv(argv)
        return [*self.enter_cgroup(),  # on the host: the jail below has no cgroup files
                self.bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--new-session", *self._mounts(service=True), "--chdir", str(self.bus),
                "--",
                *self.host_argv(argv, enter=False)]

    def prepare(self, root: Path) -> None:
        """Create the folders and files, owned so that the desktop's uid can use them."""
        root.chmod(0o711)  # the uid traverses to its own folders, lists nothing
        for folder in (self.home, self.runtime, self.private, self.bus):
            folder.mkdir(exist_ok=True)
            self.give(folder)
            folder.chmod(0o700)
        self.etc.mkdir(exist_ok=True)
        uid = self.uid if self.uid is not None else os.getuid()
        (self.etc / "passwd").write_text("root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
                                         f"agent:x:{uid}:{uid}:agent:{self.home}:/bin/sh\n")
        (self.etc / "group").write_text(f"root:x:0:\nagent:x:{uid}:\n")
        write_cookie(self.xauthority)
        if self.uid is not None:
            os.chown(self.xauthority, 0, self.uid)
        self.xauthority.chmod(0o640)

    def give(self, path: Path) -> None:
        """Make ``path`` (created by the host) the desktop uid's own."""
        if self.uid is not None:
            with contextlib.suppress(FileNotFoundError):
                os.chown(path, self.uid, self.uid, follow_symlinks=False)


__all__ = ["BASE_UID", "HIDDEN_PROGRAMS", "SHARE_DIR", "Jail", "admit_host_user", "allocate_uid",
           "app_python", "hidden_paths", "jail_is_root", "missing_tools", "open_to_all",
           "python_roots", "shared_path", "write_cookie", "write_openbox_config"]
