"""Kill every process of a desktop, also after its owner died from ``kill -9``.

Every process a :class:`~agentgym.sandboxes.desktop.DesktopSandbox` starts (Xvfb, the window
manager, x11vnc, the task's apps) carries the environment variable ``AGENTGYM_DESKTOP=<label>``.
Children inherit it, even those that start their own session (the shell of an ``xterm``), so a
scan of ``/proc/*/environ`` finds the whole tree where process groups would miss some.

Killing a jailed app's bubblewrap ends its pid namespace, so its children go too even if they
dropped the label; where the desktop has its own host uid (see :mod:`._desktop_jail`),
:func:`kill_uid` also kills every process of that uid.

Two safety nets use that label:

- a watcher process per desktop (this file run as a script, standalone: it imports nothing from
  agentgym so it starts in a few milliseconds) polls its owner and kills the label's processes
  the moment the owner is gone;
- :func:`reap_orphans`, called whenever a desktop starts, kills the processes of every desktop
  whose state file names an owner that no longer exists (the watcher itself was killed too).
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

LABEL_ENV = "AGENTGYM_DESKTOP"
"""Environment variable marking a desktop's processes; its value is the desktop's label."""
UID_BASE = 2_100_000_000
"""``_desktop_jail.BASE_UID`` (this file imports nothing of agentgym; a test keeps them equal)."""


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


def _kill_all(find: Callable[[], list[int]], rounds: int) -> int:
    """SIGKILL what ``find()`` lists until it lists nothing (or ``rounds`` passes); the hits."""
    hit = 0
    for _ in range(rounds):
        pids = find()
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


def kill_label(label: str, rounds: int = 20) -> int:
    """SIGKILL every process labelled ``label`` until none is left; return how many were hit."""
    return _kill_all(lambda: pids_with_label(label), rounds)


def descendants(roots: set[int]) -> set[int]:
    """``roots`` and every live process below them (from ``/proc/*/stat``)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = set(roots), list(roots)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def pids_of_uid(uid: int) -> list[int]:
    """Pids of the live processes whose real uid is ``uid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as f:
                status = f.read()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith(b"State:") and b"Z" in line.split()[1:2]:
                break
            if line.startswith(b"Uid:"):
                if int(line.split()[1]) == uid:
                    found.append(int(entry))
                break
    return found


def kill_uid(uid: int, rounds: int = 20) -> int:
    """SIGKILL every process of the (desktop's own, never 0) ``uid``; return how many were hit."""
    if uid <= 0:
        raise ValueError("kill_uid is for a desktop's own uid")
    return _kill_all(lambda: pids_of_uid(uid), rounds)


def _uid_free(state_dir: Path, uid: int) -> bool:
    """Whether no live process holds ``uid``'s lock (see ``_desktop_jail.allocate_uid``)."""
    try:
        fd = os.open(state_dir / "uids" / f"{uid - UID_BASE}.lock", os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


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
            uid = int(state["uid"]) if state.get("uid") else None
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if pid_alive(owner):
            continue
        kill_label(label)
        if uid is not None and uid >= UID_BASE and _uid_free(state_dir, uid):
            kill_uid(uid)
        path.unlink(missing_ok=True)
        reaped.append(label)
    return reaped


def watch(owner: int, label: str, state_file: Path, uid: int | None = None,
          interval_s: float = 0.25) -> None:
    """Wait until ``owner`` dies (or the state file is removed), then kill the label's processes
    (and those of the desktop's ``uid``). The watcher holds the uid's lock until it is done."""
    while pid_alive(owner) and state_file.exists():
        time.sleep(interval_s)
    if state_file.exists():  # the owner died without closing the desktop
        kill_label(label)
        if uid:
            kill_uid(uid)
        state_file.unlink(missing_ok=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(int(sys.argv[1]), sys.argv[2], Path(sys.argv[3]),
          int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else None)
