"""Who is to blame for a desktop fault, and how long one step may run.

A policy under RL searches for whatever pays, and an ``aborted`` episode is left out of GRPO
groups and success rates: a fault the model can cause must not abort. The desktop's host-side
processes tell the two kinds apart (see :mod:`agentgym.sandboxes.desktop`):

- the X server dying, or a jail killed by a signal *on the host* (negative exit status: nothing
  inside a desktop can see, let alone signal, the host-side ``bwrap``) is infrastructure:
  :class:`~agentgym.errors.InfrastructureError`, the episode is aborted;
- a task app whose jail reports a signal *inside* it (``bwrap`` exits 128+N: ``kill -9 $PPID``
  typed in the task's terminal), or a window manager or VNC server that exited by itself
  (``xkill``), is :class:`SelfInflicted`: the model's failure, reward 0.

:func:`run_within` runs one primitive without passing the step's deadline: waits are shortened,
long typing is sent in chunks of :data:`TYPE_CHUNK` characters with the deadline checked
between them.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from dataclasses import replace

from agentgym.errors import InfrastructureError
from agentgym.sandboxes.desktop import DesktopBroken, DesktopSandbox

from .actions import Primitive
from .backends import Backend

TYPE_CHUNK = 40
"""Characters typed between two checks of the step budget."""


class SelfInflicted(Exception):
    """A fault caused from inside the desktop, i.e. by the model's own actions."""


def check_desktop(desktop: DesktopSandbox | None,
                  task_apps: Sequence[subprocess.Popen[bytes]]) -> None:
    """Raise :class:`InfrastructureError` for a fault from outside, :class:`SelfInflicted` for
    one caused on the desktop; ``task_apps`` are the apps the task's setup started."""
    if desktop is None:
        raise InfrastructureError("no desktop")
    try:
        desktop.check_alive()
    except DesktopBroken as e:
        raise SelfInflicted(str(e)) from e
    for proc in task_apps:
        code = proc.poll()
        if code is not None and code < 0:  # the jail itself was killed: only the host can
            raise InfrastructureError(f"the task's app was killed from outside the desktop "
                                      f"(signal {-code})")
        if code is not None and code >= 128:  # the jail reports a signal inside it
            raise SelfInflicted(f"the task's app was killed from inside the desktop "
                                f"(exit status {code})")


def display_answers(desktop: DesktopSandbox, timeout_s: float = 3.0) -> bool:
    """Whether the desktop's X server answers a client within ``timeout_s``."""
    try:
        done = subprocess.run(["xdotool", "getmouselocation"], env=desktop.environ(),
                              capture_output=True, timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def blame_display(desktop: DesktopSandbox | None, error: Exception) -> Exception:
    """Who failed a display call: :class:`SelfInflicted` when the desktop's own programs held
    the display (it answers again once they are killed: an X server grab), else ``error`` (a
    display that answers, or does not even then, failed by itself: infrastructure)."""
    if desktop is None or display_answers(desktop):
        return error
    desktop.kill_apps()
    if display_answers(desktop, timeout_s=5.0):
        return SelfInflicted(f"a program on the desktop held the X server (a grab) so the "
                             f"display stopped answering; the apps were killed ({error})")
    return error


def run_within(backend: Backend, p: Primitive, deadline: float, *, settle: bool = True) -> bool:
    """Run ``p`` on ``backend`` without passing ``deadline``; False when it had to be cut."""
    if p.kind == "wait":
        left = deadline - time.monotonic()
        time.sleep(max(0.0, min(p.seconds, left)))
        return p.seconds <= left
    if p.kind == "type" and len(p.text) > TYPE_CHUNK:
        for start in range(0, len(p.text), TYPE_CHUNK):
            if time.monotonic() >= deadline:
                return False
            backend.execute(replace(p, text=p.text[start:start + TYPE_CHUNK]))
        return True
    backend.execute(p, settle=settle)
    return True


__all__ = ["TYPE_CHUNK", "SelfInflicted", "blame_display", "check_desktop", "display_answers",
           "run_within"]
