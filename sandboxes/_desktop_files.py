"""The host's access to a desktop's folders, which the model's apps write.

Everything under the desktop's home is the model's: a file may be a symlink to a host path, a
folder a symlink to ``/etc``, a name a FIFO that blocks a reader. The host (the env, the scorer)
reads there only through :func:`read_no_follow` and empties folders with :func:`empty_folder`
(``shutil.rmtree`` does not follow symlinks).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from agentgym.sandbox import check_relative

MAX_READ = 16 * 1024 * 1024
"""Longest file :func:`read_no_follow` returns (the rest is cut)."""


def read_no_follow(base: Path, rel: str, limit: int = MAX_READ) -> bytes | None:
    """Bytes of the regular file ``rel`` under ``base``, or None.

    Every path component is opened with ``O_NOFOLLOW`` relative to its parent folder's
    descriptor, so no symlink anywhere on the path is followed and nothing swapped in between a
    check and the open is either. A path that leaves ``base``, a folder, FIFO or device is None.
    """
    try:
        parts = [p for p in check_relative(rel).split("/") if p not in ("", ".")]
    except ValueError:
        return None
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(base, flags | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            nxt = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        leaf = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(leaf).st_mode):
        os.close(leaf)
        return None
    with os.fdopen(leaf, "rb") as f:
        return f.read(limit)


def empty_folder(folder: Path) -> None:
    """Remove everything in ``folder`` (symlinks themselves, never what they point to)."""
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


__all__ = ["MAX_READ", "empty_folder", "read_no_follow"]
