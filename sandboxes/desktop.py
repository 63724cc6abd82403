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
  With bubblewrap present they run without network, on a read-only root, with only the desktop's
  home folder writable: a model typing into an ``xterm`` cannot touch the host.
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
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentgym.errors import InfrastructureError
from agentgym.sandbox import (
    RunResult,
    RunStatus,
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxUnavailable,
)

from . import _desktop_reaper as reaper
from ._desktop_a11y import a11y_parts, start_a11y_bus
from ._desktop_setup import run_setup_steps

logger = logging.getLogger(__name__)


def _code_under_tmp() -> list[str]:
    """``--ro-bind`` arguments for the interpreter and code an app needs that live under /tmp.

    The apps' /tmp is a fresh tmpfs; a virtual environment or checkout under /tmp (a CI clone)
    would vanish behind it, and the app could not start.
    """
    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(__file__).resolve().parents[1],
             *(Path(p) for p in sys.path if p)}
    keep = sorted({str(r) for r in roots if r.is_dir() and r.resolve().parts[1:2] == ("tmp",)})
    keep = [k for k in keep if not any(k != o and k.startswith(o + "/") for o in keep)]
    return [arg for k in keep for arg in ("--ro-bind", k, k)]

class DesktopLost(SandboxError, InfrastructureError):
    """The desktop's X server or VNC server died: an infrastructure failure, not the model's."""


STATE_DIR = Path(tempfile.gettempdir()) / "agentgym-desktops"
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
    """Run apps under bubblewrap (no network, read-only root) when bwrap is installed."""
    accessibility: bool = False
    """Start a private AT-SPI bus (when at-spi2-core is installed) so GTK apps publish their
    widget trees; :attr:`DesktopSandbox.a11y_address` (None when not started)."""
    start_timeout_s: float = 15.0
    """Longest wait for Xvfb and x11vnc to come up."""


class DesktopSandbox(Sandbox):
    """One Xvfb display with its window manager and apps; see the module docstring."""

    name = "desktop"
    python = sys.executable

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
        self.home.mkdir()
        self.display = ""
        self.vnc_port: int | None = None
        self.a11y_address: str | None = None
        """Address of the desktop's accessibility bus (``unix:path=...``), when started."""
        self.apps: list[subprocess.Popen[bytes]] = []
        self._core: list[subprocess.Popen[bytes]] = []
        self._watcher: subprocess.Popen[bytes] | None = None
        self._state_file = STATE_DIR / f"{self.label}.json"
        self._bwrap = shutil.which("bwrap") if self.config.isolate_apps else None
        reaper.reap_orphans(STATE_DIR)
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # -- lifecycle ---------------------------------------------------------------------------

    def environ(self) -> dict[str, str]:
        """Environment of every process on this desktop (``DISPLAY``, ``HOME``, the label)."""
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TERM")}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.update({
            "DISPLAY": self.display, "HOME": str(self.home), reaper.LABEL_ENV: self.label,
            "XDG_RUNTIME_DIR": str(self.root),
        })
        if self.a11y_address:
            env["AT_SPI_BUS_ADDRESS"] = self.a11y_address
        else:
            env["NO_AT_BRIDGE"] = "1"
        return env

    def _spawn(self, argv: Sequence[str], *, cwd: Path | None = None,
               stdout: int = subprocess.DEVNULL, pass_fds: tuple[int, ...] = ()
               ) -> subprocess.Popen[bytes]:
        env = self.environ() if self.display else {**os.environ, reaper.LABEL_ENV: self.label}
        return subprocess.Popen(
            list(argv), env=env, cwd=cwd or self.home, stdin=subprocess.DEVNULL,
            stdout=stdout, stderr=subprocess.DEVNULL, pass_fds=pass_fds, start_new_session=True,
        )

    def _start(self) -> None:
        STATE_DIR.mkdir(exist_ok=True)
        self._state_file.write_text(json.dumps({"owner": os.getpid(), "label": self.label}))
        self._watcher = subprocess.Popen(
            [sys.executable, "-S", reaper.__file__, str(os.getpid()), self.label,
             str(self._state_file)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True,
        )
        r, w = os.pipe()
        try:
            size = f"{self.config.width}x{self.config.height}x24"
            self._core.append(self._spawn(
                ["Xvfb", "-displayfd", str(w), "-screen", "0", size, "-nolisten", "tcp",
                 "+extension", "XTEST"],
                pass_fds=(w,),
            ))
            os.close(w)
            w = -1
            number = _read_line(r, self.config.start_timeout_s)
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)
        if not number.isdigit():
            raise SandboxUnavailable("Xvfb did not report a display number")
        self.display = f":{number}"
        if self.config.window_manager:
            self._start_window_manager()
        if self.config.accessibility and a11y_parts() is not None:
            self._start_a11y()
        if self.config.vnc:  # last: alive() watches it as _core[-1]
            self.vnc_port = self._start_vnc()
        logger.debug("desktop %s on %s (vnc %s)", self.label, self.display, self.vnc_port)

    def _start_window_manager(self, attempts: int = 3) -> None:
        """Start the WM and wait until it owns the screen (EWMH check window).

        openbox sometimes exits at once with "Failed to open the display" on a display that
        Xvfb has just reported ready: it is started again, up to ``attempts`` times.
        """
        deadline = time.monotonic() + self.config.start_timeout_s
        for attempt in range(attempts):
            wm = self._spawn([str(self.config.window_manager)])
            while time.monotonic() < deadline and wm.poll() is None:
                done = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"],
                                      env=self.environ(), capture_output=True, text=True)
                if "window id" in done.stdout:
                    self._core.append(wm)
                    return
                time.sleep(0.05)
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
            self._core.extend(start_a11y_bus(self._spawn, set_address, self.root,
                                             self.config.start_timeout_s))
        except (OSError, TimeoutError, subprocess.SubprocessError) as e:
            logger.warning("desktop %s: no accessibility bus (%s)", self.label, e)
            self.a11y_address = None

    def _start_vnc(self) -> int:
        if shutil.which("x11vnc") is None:
            raise SandboxUnavailable("vnc=True needs x11vnc (apt)")
        for _ in range(5):
            port = _free_port()
            # -noshm: a SIGKILLed x11vnc would leak its ~40 SysV segments (the table holds 4096)
            proc = self._spawn(["x11vnc", "-display", self.display, "-localhost", "-rfbport",
                                str(port), "-forever", "-shared", "-nopw", "-quiet", "-noxdamage",
                                "-noshm"])
            deadline = time.monotonic() + self.config.start_timeout_s
            while time.monotonic() < deadline and proc.poll() is None:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        self._core.append(proc)
                        return port
                time.sleep(0.05)
            proc.kill()
            proc.wait()
        raise SandboxUnavailable("x11vnc did not start")

    def alive(self) -> bool:
        """Whether the X server, the window manager and (when asked for) VNC still run."""
        watched = 2 if self.config.window_manager else 1  # Xvfb, then the WM
        return len(self._core) >= watched and all(
            p.poll() is None for p in self._core[:watched]) and (
            not self.config.vnc or self._core[-1].poll() is None
        )

    def check_alive(self) -> None:
        """Raise :class:`DesktopLost` when the X server, WM or VNC server has died."""
        if self._closed or not self.alive():
            raise DesktopLost(f"the desktop {self.display or '?'} is gone "
                              "(X server, window manager or VNC server died)")

    # -- apps --------------------------------------------------------------------------------

    def launch(self, argv: Sequence[str], *, isolate: bool = True) -> subprocess.Popen[bytes]:
        """Start an app on the desktop (under bubblewrap when ``isolate`` and available)."""
        self._check_open()
        command = list(argv)
        if isolate and self._bwrap:
            command = [self._bwrap, *self._bwrap_args(), "--", *command]
        proc = self._spawn(command)
        self.apps.append(proc)
        return proc

    def _bwrap_args(self) -> list[str]:
        x_socket = f"/tmp/.X11-unix/X{self.display.lstrip(':')}"
        return ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                *_code_under_tmp(),
                "--bind", x_socket, x_socket, "--bind", str(self.root), str(self.root),
                "--unshare-net", "--unshare-pid", "--unshare-ipc", "--new-session"]

    def kill_apps(self) -> None:
        """Kill every app (and its children), keeping the X server, window manager and VNC."""
        keep = {p.pid for p in self._core}
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
        """Empty the home folder (between tasks)."""
        for child in self.home.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)

    def setup(self, steps: Sequence[dict[str, object]]) -> None:
        """Run OSWorld-style setup steps (see :mod:`._desktop_setup`); raise on a failed step."""
        self._check_open()
        run_setup_steps(self, steps)

    # -- Sandbox contract --------------------------------------------------------------------

    def _run(self, command: list[str], stdin: bytes, files: dict[str, bytes], fetch: list[str],
             limits: SandboxLimits) -> RunResult:
        if not self.alive():
            return RunResult(status=RunStatus.SANDBOX_ERROR, error="the X server is gone")
        with tempfile.TemporaryDirectory(dir=self.root) as tmp:
            work = Path(tmp)
            for rel, content in files.items():
                (work / rel).parent.mkdir(parents=True, exist_ok=True)
                (work / rel).write_bytes(content)
            t0 = time.monotonic()
            try:
                done = subprocess.run(command, input=stdin, capture_output=True, cwd=work,
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
        for proc in [*self.apps, *self._core]:
            proc.poll()
        if self._watcher is not None:
            self._watcher.kill()
            self._watcher.wait()
        shutil.rmtree(self.root, ignore_errors=True)

    def __del__(self) -> None:
        if not getattr(self, "_closing", True):
            self.close()


def _read_line(fd: int, timeout_s: float) -> str:
    import select

    data = b""
    deadline = time.monotonic() + timeout_s
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 64)
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace").strip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


__all__ = ["STATE_DIR", "DesktopConfig", "DesktopLost", "DesktopSandbox", "desktop_available"]
