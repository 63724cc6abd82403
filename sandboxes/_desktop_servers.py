"""Start a desktop's X server and VNC server, each through a ``spawn`` the desktop gives
(which runs it as the desktop's uid, see :mod:`._desktop_jail`).

- **Xvfb** picks its own display number (``-displayfd``: concurrent desktops never collide),
  wants the desktop's cookie (``-auth``) and keeps its access list for its whole life
  (``-noreset``: otherwise the last client leaving resets it and drops the host's entry).
- **x11vnc** listens on 127.0.0.1 only, on a free port it is retried with.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym.sandbox import SandboxUnavailable

Spawn = Callable[..., "subprocess.Popen[bytes]"]
"""``spawn(argv, **popen_kwargs)``: start a process as the desktop's uid."""


def start_xvfb(spawn: Spawn, size: tuple[int, int], xauthority: Path, timeout_s: float
               ) -> tuple[subprocess.Popen[bytes], str]:
    """Start Xvfb; return the process and its display number (``"3"``)."""
    r, w = os.pipe()
    try:
        proc = spawn(["Xvfb", "-displayfd", str(w), "-screen", "0", f"{size[0]}x{size[1]}x24",
                      "-nolisten", "tcp", "-auth", str(xauthority), "-noreset",
                      "+extension", "XTEST"], pass_fds=(w,))
        os.close(w)
        w = -1
        number = _read_line(r, timeout_s)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
    if not number.isdigit():
        proc.kill()
        proc.wait()
        raise SandboxUnavailable("Xvfb did not report a display number")
    return proc, number


def start_vnc(spawn: Spawn, display: str, timeout_s: float
              ) -> tuple[subprocess.Popen[bytes], int]:
    """Start x11vnc on ``display`` bound to 127.0.0.1; return the process and its port."""
    if shutil.which("x11vnc") is None:
        raise SandboxUnavailable("vnc=True needs x11vnc (apt)")
    for _ in range(5):
        port = _free_port()
        # -noshm: a SIGKILLed x11vnc would leak its ~40 SysV segments (the table holds 4096)
        proc = spawn(["x11vnc", "-display", display, "-localhost", "-rfbport", str(port),
                      "-forever", "-shared", "-nopw", "-quiet", "-noxdamage", "-noshm"])
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return proc, port
            time.sleep(0.05)
        proc.kill()
        proc.wait()
    raise SandboxUnavailable("x11vnc did not start")


def wait_for_window_manager(wm: subprocess.Popen[bytes], env: dict[str, Any],
                            deadline: float) -> bool:
    """Wait until a window manager owns the screen (EWMH check window) or ``wm`` exits."""
    while time.monotonic() < deadline and wm.poll() is None:
        done = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env,
                              capture_output=True, text=True)
        if "window id" in done.stdout:
            return True
        time.sleep(0.05)
    return False


def _read_line(fd: int, timeout_s: float) -> str:
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


__all__ = ["Spawn", "start_vnc", "start_xvfb", "wait_for_window_manager"]
