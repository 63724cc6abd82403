"""Kill every process of a desktop, also after its owner died from ``kill -9``.

Every process a :class:`~agentgym.sandboxes.desktop.DesktopSandbox` starts (Xvfb, the window
manager, x11vnc, the task's apps) carries the environment variable ``AGENTGYM_DESKTOP=<label>``.
Children inherit it, even those that start their own session (the shell of an ``xterm``), so a
scan of ``/proc/*/environ`` finds the whole tree where process groups would miss some.

Two safety nets use that label:

- a watcher process per desktop (this file run as a script, standalone: it imports nothing from
  agentgym so it starts in a few milliseconds) polls its owner and kills the label's processes
  the moment the owner is gone;
- :func:`reap_orphans`, called whenever a desktop starts, kills the processes of every desktop
  whose state file names an owner that no longer exists (the watcher itself was killed too).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

LABEL_ENV = "AGENTGYM_DESKTOP"
"""Environment variable marking a desktop's processes; its value is the desktop's label."""


def pids_with_label(label: str) -> list[int]:
    """Pids of the live (non-zombie) processes whose environment holds ``LABEL_ENV=label``."""
    needle = f"{LABEL_ENV}={label}".encode() + b"\0"
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read() + b"\0"
            with open(f"/proc/{entry}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z" and (b"\0" + needle in b"\0" + environ):
            found.append(int(entry))
    return found


def kill_label(label: str, rounds: int = 20) -> int:
    """SIGKILL every process labelled ``label`` until none is left; return how many were hit."""
    hit = 0
    for _ in range(rounds):
        pids = pids_with_label(label)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                hit += 1
            except OSError:
                pass
        time.sleep(0.02)
    return hit


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` names a live, non-zombie process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def reap_orphans(state_dir: Path) -> list[str]:
    """Kill the desktops in ``state_dir`` whose owner process is gone; return their labels."""
    reaped: list[str] = []
    if not state_dir.is_dir():
        return reaped
    for path in state_dir.glob("*.json"):
        try:
            state = json.loads(path.read_text())
            owner, label = int(state["owner"]), str(state["label"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if pid_alive(owner):
            continue
        kill_label(label)
        path.unlink(missing_ok=True)
        reaped.append(label)
    return reaped


def watch(owner: int, label: str, state_file: Path, interval_s: float = 0.25) -> None:
    """Wait until ``owner`` dies (or the state file is removed), then kill the label's processes."""
    while pid_alive(owner) and state_file.exists():
        time.sleep(interval_s)
    if state_file.exists():  # the owner died without closing the desktop
        kill_label(label)
        state_file.unlink(missing_ok=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(int(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
