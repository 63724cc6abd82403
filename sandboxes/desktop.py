"""A virtual desktop: Xvfb, a light window manager, the task's apps and an optional VNC server.

>>> from agentgym.sandboxes.desktop import DesktopSandbox
>>> with DesktopSandbox() as desktop:                               # doctest: +SKIP
...     desktop.setup([{"type": "launch", "parameters": {"command": ["xterm"]}}])
...     desktop.display
':3'

- **Display numbers** come from ``Xvfb -displayfd``: the X server itself takes the first free
  number, so concurrent desktops (threads, processes, other users) never collide.
- **Apps** start through :meth:`DesktopSandbox.setup` steps shaped like OSWorld's task ``config``
  (``launch``, ``open``, ``execute``, ``sleep``, ``activate_window``, ``wait_window``, ``file``).
- **Containment** (:mod:`._desktop_jail`): the window manager, every app and everything they
  start run in bubblewrap as the desktop's own unprivileged uid, with no capabilities, no
  network, a read-only system, only the desktop's home writable and a cap on processes; Xvfb,
  x11vnc and the accessibility bus run as that uid too. Xvfb wants the desktop's own cookie.
  A model typing into an ``xterm`` cannot touch the host or another desktop.
- **VNC**: ``vnc=True`` starts ``x11vnc`` bound to 127.0.0.1; :attr:`DesktopSandbox.vnc_port`.
- **Teardown** kills every process of the desktop. Each carries ``AGENTGYM_DESKTOP=<label>``
  (see :mod:`._desktop_reaper`); a watcher process kills them when the owner dies, even from
  ``kill -9``, and every new desktop reaps those of dead owners.

:meth:`DesktopSandbox.run` runs a command on the desktop (``DISPLAY`` set) in a fresh workdir,
the :class:`~agentgym.sandbox.Sandbox` contract; it is how task setup and evaluators read state.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym.errors import InfrastructureError
from agentgym.private_dirs import private_dir, user_tmp_dir
from agentgym.sandbox import (
    RunResult,
    RunStatus,
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxUnavailable,
)

from . import _desktop_reaper as reaper
from ._cgroup import create_run_cgroup
from ._desktop_a11y import a11y_parts, start_a11y_bus
from ._desktop_files import empty_folder, read_no_follow
from ._desktop_jail import (
    Jail,
    admit_host_user,
    allocate_uid,
    app_python,
    jail_is_root,
    missing_tools,
    shared_path,
    write_openbox_config,
)
from ._desktop_servers import start_vnc, start_xvfb, wait_for_window_manager
from ._desktop_setup import run_setup_steps

logger = logging.getLogger(__name__)


class DesktopLost(SandboxError, InfrastructureError):
    """The desktop's X server died, or a part of it was killed from the host: an infrastructure
    failure, not the model's."""


class DesktopBroken(SandboxError):
    """A part of the desktop (window manager, VNC server) exited by itself: something done on
    the desktop, that is by the model, ended it. Scored as the model's failure."""


STATE_DIR = user_tmp_dir("agentgym-desktops")
"""One ``<label>.json`` per live desktop: owner pid and label, read by the reaper."""


def desktop_available() -> bool:
    """Whether Xvfb and xdotool are installed."""
    return shutil.which("Xvfb") is not None and shutil.which("xdotool") is not None


@dataclass(frozen=True)
class DesktopConfig:
    """Size and parts of one virtual desktop."""

    width: int = 1280
    """Screen width in pixels."""
    height: int = 720
    """Screen height in pixels."""
    window_manager: str | None = "openbox"
    """Window manager command, or None for none."""
    vnc: bool = False
    """Start x11vnc on 127.0.0.1 so a person (or the VNC backend) can connect."""
    isolate_apps: bool = True
    """Run the window manager and apps in the jail (:mod:`._desktop_jail`); needs bubblewrap.
    False runs them as the caller with the host's view: for debugging, never for a model."""
    share: tuple[str, ...] = ()
    """Host files the apps see read-only at ``shared_path(file)`` (``/opt/agentgym/<name>``):
    the project's Tk apps, never the checkout around them."""
    max_processes: int = 512
    """Processes and threads the desktop may hold (as root, where each desktop has a uid)."""
    max_file_bytes: int = 256 * 1024 * 1024
    """Largest file a process of the desktop may write (a terminal cannot fill the disk with
    one file; the home's total size is not capped)."""
    memory_mb: int = 2048
    """Memory of the whole desktop (X server, window manager, apps): a cgroup's ``memory.max``
    where this process may create one (root), else each process's address space
    (``RLIMIT_AS``), which caps one process but not their sum."""
    accessibility: bool = False
    """Start a private AT-SPI bus (when at-spi2-core is installed) so GTK apps publish their
    widget trees; :attr:`DesktopSandbox.a11y_address` (None when not started)."""
    start_timeout_s: float = 15.0
    """Longest wait for Xvfb and x11vnc to come up."""


class DesktopSandbox(Sandbox):
    """One Xvfb display with its window manager and apps; see the module docstring."""

    name = "desktop"
    python = app_python()
    """An interpreter the jail shows (never a virtual environment's: its folder is not there)."""

    def __init__(
        self, config: DesktopConfig | None = None, limits: SandboxLimits | None = None
    ) -> None:
        super().__init__(limits)
        if not desktop_available():
            raise SandboxUnavailable("the desktop sandbox needs Xvfb and xdotool (apt)")
        self.config = config or DesktopConfig()
        self.label = f"d{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.root = Path(tempfile.mkdtemp(prefix=f"agentgym-{self.label}-"))
        self.home = self.root / "home"
        self.display = ""
        self.vnc_port: int | None = None
        self.a11y_address: str | None = None
        """Address of the desktop's accessibility bus (``unix:path=...``), when started."""
        self.apps: list[subprocess.Popen[bytes]] = []
        self._core: list[subprocess.Popen[bytes]] = []
        self._watcher: subprocess.Popen[bytes] | None = None
        self._state_file = STATE_DIR / f"{self.label}.json"
        self._uid_lock = -1
        self._bwrap = shutil.which("bwrap") if self.config.isolate_apps else None
        try:
            missing = missing_tools(jailed=self.config.isolate_apps)
            if missing:
                raise SandboxUnavailable(f"the desktop needs {', '.join(missing)} (apt: xauth, "
                                         "x11-xserver-utils, bubblewrap, util-linux); "
                                         "isolate_apps=False runs without the jail, for "
                                         "debugging only")
            private_dir(STATE_DIR)  # this user's alone: its files name pids to kill and uids
            reaper.reap_orphans(STATE_DIR)
            uid = None
            if jail_is_root() and self.config.isolate_apps:
                uid, self._uid_lock = allocate_uid(STATE_DIR)
            self.uid = uid
            """Host uid of the desktop's processes (None: the caller's own)."""
            self._cgroup = create_run_cgroup(SandboxLimits(
                memory_mb=self.config.memory_mb, pids=self.config.max_processes,
                cpus=float(os.cpu_count() or 1))) if uid is not None else None
            self.jail = Jail(
                uid=uid, display_socket="", xauthority=self.root / "x" / "Xauthority",
                home=self.home, runtime=self.root / "run", bus=self.root / "bus",
                private=self.root / "private",
                etc=self.root / "x", share=self.config.share,
                max_processes=self.config.max_processes,
                max_file_bytes=self.config.max_file_bytes, bwrap=self._bwrap or "bwrap",
                cgroup_procs=tuple(str(d / "cgroup.procs") for d in self._cgroup.dirs.values())
                if self._cgroup else (),
                max_memory_bytes=self.config.memory_mb * 1024 * 1024)
            (self.root / "x").mkdir()
            # the jail binds copies: the desktop's uid may not reach the checkout (a clone
            # under a 0700 folder), and the apps then see no file of the checkout at all
            copies = []
            for path in self.config.share:
                copy = self.root / "x" / Path(path).name
                shutil.copyfile(path, copy)
                copy.chmod(0o644)
                copies.append(str(copy))
            self.jail.share = tuple(copies)
            self.jail.prepare(self.root)
            self._start()
        except BaseException:
            self.close()
            raise

    @property
    def private_dir(self) -> Path:
        """Folder bound only into launches with ``private=True``: out of the model's reach."""
        return self.jail.private

    # -- lifecycle ---------------------------------------------------------------------------

    def environ(self) -> dict[str, str]:
        """Environment of the desktop's clients (``DISPLAY``, ``XAUTHORITY``, ``HOME``...)."""
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TERM")}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.update({
            "DISPLAY": self.display, "HOME": str(self.home),
            "XAUTHORITY": str(self.jail.xauthority), "XDG_RUNTIME_DIR": str(self.jail.runtime),
        })
        if self.a11y_address:
            env["AT_SPI_BUS_ADDRESS"] = self.a11y_address
        else:
            env["NO_AT_BRIDGE"] = "1"
        return env

    def _spawn(self, argv: Sequence[str], *, cwd: Path | None = None,
               stdout: int = subprocess.DEVNULL, pass_fds: tuple[int, ...] = ()
               ) -> subprocess.Popen[bytes]:
        env = {**self.environ(), reaper.LABEL_ENV: self.label}
        if not self.display:
            env.pop("DISPLAY")
        return subprocess.Popen(
            list(argv), env=env, cwd=cwd or self.root, stdin=subprocess.DEVNULL,
            stdout=stdout, stderr=subprocess.DEVNULL, pass_fds=pass_fds, start_new_session=True,
        )

    def _host(self, argv: Sequence[str], **kw: Any) -> subprocess.Popen[bytes]:
        """Start a host-side part (Xvfb, x11vnc, the bus) as the desktop's uid."""
        return self._spawn(self.jail.host_argv(argv) if self.config.isolate_apps else argv,
                           **kw)

    def _service(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        """Start a service the host talks to (the accessibility bus); see ``Jail.service_argv``."""
        return self._spawn(self.jail.service_argv(argv) if self.config.isolate_apps else argv)

    def _jailed(self, argv: Sequence[str], *, private: bool = False) -> list[str]:
        if not self.config.isolate_apps:  # debugging: the shared files at their host paths
            host = {shared_path(p): p for p in self.jail.share}
            state = ["env", f"AGENTGYM_STATE_DIR={self.jail.private}"] if private else []
            return [*state, *(host.get(a, a) for a in argv)]
        return self.jail.sandbox_argv(argv, private=private)

    def _start(self) -> None:
        self._state_file.write_text(json.dumps(
            {"owner": os.getpid(), "label": self.label, "uid": self.uid}))
        self._watcher = subprocess.Popen(
            [sys.executable, "-S", reaper.__file__, str(os.getpid()), self.label,
             str(self._state_file), str(self.uid or "")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True,
            pass_fds=(self._uid_lock,) if self._uid_lock >= 0 else (),
        )
        xvfb, number = start_xvfb(self._host, (self.config.width, self.config.height),
                                  self.jail.xauthority, self.config.start_timeout_s)
        self._core.append(xvfb)
        self.display = f":{number}"
        self.jail.display_socket = f"/tmp/.X11-unix/X{number}"
        admit_host_user(self.display, self.jail.xauthority)
        if self.config.window_manager:
            self._start_window_manager()
        if self.config.accessibility and a11y_parts() is not None:
            self._start_a11y()
        if self.config.vnc:  # last: alive() watches it as _core[-1]
            vnc, self.vnc_port = start_vnc(self._host, self.display, self.config.start_timeout_s)
            self._core.append(vnc)
        logger.debug("desktop %s on %s (vnc %s)", self.label, self.display, self.vnc_port)

    def _start_window_manager(self, attempts: int = 3) -> None:
        """Start the WM in the jail and wait until it owns the screen (EWMH check window).

        openbox gets a configuration without a root menu or launcher key. It sometimes exits at
        once with "Failed to open the display" on a display that Xvfb has just reported ready:
        it is started again, up to ``attempts`` times.
        """
        argv = [str(self.config.window_manager)]
        if Path(argv[0]).name == "openbox":
            rc, menu = self.root / "x" / "openbox-rc.xml", self.root / "x" / "openbox-menu.xml"
            jailed = self.config.isolate_apps
            write_openbox_config(rc, menu, shared_path(menu) if jailed else str(menu))
            argv += ["--config-file", shared_path(rc) if jailed else str(rc)]
            self.jail.share = (*self.jail.share, str(rc), str(menu))
        deadline = time.monotonic() + self.config.start_timeout_s
        for attempt in range(attempts):
            wm = self._spawn(self._jailed(argv))
            if wait_for_window_manager(wm, self.environ(), deadline):
                self._core.append(wm)
                return
            logger.info("desktop %s: window manager exited (%s), attempt %d", self.label,
                        wm.poll(), attempt + 1)
            if wm.poll() is None:  # alive but not up in time: give up
                wm.kill()
                wm.wait()
                break
            time.sleep(0.2)
        # without a WM, windows are undecorated at (0, 0) and keys follow the pointer: every
        # task would fail for a reason that is not the model's
        raise SandboxUnavailable(f"window manager {self.config.window_manager} did not come up "
                                 f"on {self.display}")

    def _start_a11y(self) -> None:
        """The private accessibility bus; a failure leaves the desktop without one (logged)."""
        def set_address(address: str) -> None:
            self.a11y_address = address

        try:
            self._core.extend(start_a11y_bus(self._service, set_address, self.jail.bus,
                                             self.config.start_timeout_s))
        except (OSError, TimeoutError, subprocess.SubprocessError) as e:
            logger.warning("desktop %s: no accessibility bus (%s)", self.label, e)
            self.a11y_address = None

    def _watched(self) -> list[tuple[str, subprocess.Popen[bytes]]]:
        parts = [("X server", self._core[0])] if self._core else []
        if self.config.window_manager and len(self._core) > 1:
            parts.append(("window manager", self._core[1]))
        if self.config.vnc and self.vnc_port is not None:
            parts.append(("VNC server", self._core[-1]))
        return parts

    def alive(self) -> bool:
        """Whether the X server, the window manager and (when asked for) VNC still run."""
        want = 1 + bool(self.config.window_manager) + bool(self.config.vnc)
        watched = self._watched()
        return len(watched) == want and all(p.poll() is None for _, p in watched)

    def check_alive(self) -> None:
        """Raise when the X server, WM or VNC server is gone.

        :class:`DesktopLost` (infrastructure) when the X server died, or a part was killed by a
        signal from the host; :class:`DesktopBroken` (the model's doing) when the window
        manager or VNC server exited by itself, which only something done on the desktop causes
        (an X client can disconnect any other, e.g. ``xkill``).
        """
        if self._closed:
            raise DesktopLost(f"the desktop {self.display or '?'} is closed")
        if self.alive():
            return
        for what, proc in self._watched():
            code = proc.poll()
            if code is None:
                continue
            if what == "X server" or code < 0:
                raise DesktopLost(f"the desktop {self.display or '?'} is gone: its {what} "
                                  f"died (status {code}; X server, window manager or VNC "
                                  "server died)")
            raise DesktopBroken(f"the desktop's {what} exited (status {code}) after something "
                                "done on the desktop")
        raise DesktopLost(f"the desktop {self.display or '?'} is gone (X server, window "
                          "manager or VNC server died)")

    # -- apps --------------------------------------------------------------------------------

    def launch(self, argv: Sequence[str], *, private: bool = False) -> subprocess.Popen[bytes]:
        """Start an app on the desktop, in the jail.

        ``private``: the app also sees :attr:`private_dir` (``$AGENTGYM_STATE_DIR``), where a
        task app writes the state its scorer reads; apps the model opens never get it.
        """
        self._check_open()
        proc = self._spawn(self._jailed(argv, private=private), cwd=self.home)
        self.apps.append(proc)
        return proc

    def kill_apps(self) -> None:
        """Kill every app (and its children), keeping the X server, window manager and VNC.

        Killing an app's bubblewrap ends its pid namespace, so children that dropped the
        desktop's label go too.
        """
        keep = reaper.descendants({p.pid for p in self._core if p.poll() is None})
        for _ in range(10):
            victims = [pid for pid in reaper.pids_with_label(self.label) if pid not in keep]
            if not victims:
                break
            for pid in victims:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
            time.sleep(0.02)
        for proc in self.apps:
            proc.poll()
        self.apps.clear()

    def clear_home(self) -> None:
        """Empty the home folder and the private folder (between tasks)."""
        for folder in (self.home, self.jail.private):
            empty_folder(folder)

    def read_home_file(self, rel: str, *, private: bool = False) -> bytes | None:
        """Bytes of the regular file ``rel`` under the home (or private) folder, or None; no
        symlink on the path is followed (see :func:`._desktop_files.read_no_follow`)."""
        return read_no_follow(self.jail.private if private else self.home, rel)

    def own(self, path: Path) -> None:
        """Hand ``path`` (written by the host, e.g. a setup ``file`` step) to the desktop's uid."""
        self.jail.give(path)

    def setup(self, steps: Sequence[dict[str, object]]) -> None:
        """Run OSWorld-style setup steps (see :mod:`._desktop_setup`); raise on a failed step."""
        self._check_open()
        run_setup_steps(self, steps)  # type: ignore[arg-type]  # duck-typed SetupTarget

    # -- Sandbox contract --------------------------------------------------------------------

    def _run(self, command: list[str], stdin: bytes, files: dict[str, bytes], fetch: list[str],
             limits: SandboxLimits) -> RunResult:
        if not self._core or self._core[0].poll() is not None:  # a dead WM does not matter
            return RunResult(status=RunStatus.SANDBOX_ERROR, error="the X server is gone")
        with tempfile.TemporaryDirectory(dir=self.root, prefix="work-") as tmp:
            work = Path(tmp)
            for rel, content in files.items():
                (work / rel).parent.mkdir(parents=True, exist_ok=True)
                (work / rel).write_bytes(content)
            for path in (work, *work.rglob("*")):
                self.jail.give(path)
            argv = (self.jail.sandbox_argv(command, workdir=work)
                    if self.config.isolate_apps else command)
            t0 = time.monotonic()
            try:
                done = subprocess.run(argv, input=stdin, capture_output=True, cwd=work,
                                      env=self.environ(), timeout=limits.timeout_s,
                                      start_new_session=True)
            except subprocess.TimeoutExpired:
                return RunResult(status=RunStatus.TIMEOUT, timed_out=True,
                                 duration_s=time.monotonic() - t0)
            except OSError as e:
                return RunResult(stderr=str(e), exit_code=127, status=RunStatus.ERROR)
            cap = limits.output_bytes
            code = done.returncode if done.returncode >= 0 else 128 - done.returncode
            out = {p: (work / p).read_bytes() for p in fetch
                   if (work / p).is_file() and not (work / p).is_symlink()}
            return RunResult(
                stdout=done.stdout[:cap].decode(errors="replace"),
                stderr=done.stderr[:cap].decode(errors="replace"), exit_code=code,
                duration_s=time.monotonic() - t0,
                output_truncated=len(done.stdout) > cap or len(done.stderr) > cap,
                status=RunStatus.OK if code == 0 else RunStatus.ERROR, files=out,
            )

    def close(self) -> None:
        """Kill every process of the desktop and remove its folder; safe to call twice."""
        if getattr(self, "_closing", False):
            return
        self._closing = True
        super().close()
        self._state_file.unlink(missing_ok=True)
        reaper.kill_label(self.label)
        if getattr(self, "uid", None) is not None:
            reaper.kill_uid(int(self.uid))  # type: ignore[arg-type]
        for proc in [*self.apps, *self._core]:
            proc.poll()
        if self._watcher is not None:
            self._watcher.kill()
            self._watcher.wait()
        cgroup = getattr(self, "_cgroup", None)
        if cgroup is not None:
            cgroup.destroy()
            self._cgroup = None
        if self._uid_lock >= 0:
            os.close(self._uid_lock)
            self._uid_lock = -1
        shutil.rmtree(self.root, ignore_errors=True)

    def __del__(self) -> None:
        if not getattr(self, "_closing", True):
            self.close()


__all__ = ["STATE_DIR", "DesktopBroken", "DesktopConfig", "DesktopLost", "DesktopSandbox",
           "desktop_available"]
