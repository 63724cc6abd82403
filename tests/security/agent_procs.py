"""Host processes of a gateway agent, found by a marker in their command lines (a jailed
agent's own pids are its pid namespace's, so the host looks them up by what they run)."""

from __future__ import annotations

import os


def marked(mark: str) -> list[int]:
    """Host pids whose command line holds ``mark``."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if mark.encode() in f.read():
                    out.append(int(pid))
        except OSError:
            pass
    return out
