"""Private state folders: created for this user alone, or refused when someone else got there first.

agentgym keeps runtime state (the WebArena sites' server state and pid, the desktops' state files
and uid locks) in folders with predictable names under the temporary directory, which every local
user may write. ``Path.mkdir(exist_ok=True)`` there trusts whoever created the name first: another
user who made the folder (or a symlink by that name) beforehand can read and plant the state, and
through it point episodes at a server of theirs, make root write files of their choice or kill a
pid of their choice.

:func:`private_dir` creates the folder with mode ``0700``, or, when the name exists, opens it
without following a symlink and accepts it only if it is a directory this user owns that nobody
else may write (a folder of ours that others may read is tightened to ``0700``). Anything else is
:class:`~agentgym.errors.UnsafeFolder`, naming the folder and what is wrong, and nothing is used.
Names should carry the user id too (:func:`user_tmp_dir`), so two users never compete for one.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .errors import UnsafeFolder


def user_tmp_dir(name: str) -> Path:
    """``<tmp>/<name>-<uid>``: a per-user name under the temporary directory (not created)."""
    return Path(tempfile.gettempdir()) / f"{name}-{os.geteuid()}"


def private_dir(path: str | Path, *, parents: bool = False) -> Path:
    """Create ``path`` as a folder only this user can use, or check that the existing one is.

    ``parents``: create missing parent folders first (plainly: only the last component is
    checked, so a configured path's parents are the caller's to trust). Returns ``path``; raises
    :class:`~agentgym.errors.UnsafeFolder` for a symlink, a non-directory, a folder another user
    owns, or one others may write.
    """
    path = Path(path)
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:  # ELOOP: a symlink; ENOTDIR: a file
        kind = "a symlink" if path.is_symlink() else "not a directory"
        raise UnsafeFolder(f"{path} is {kind}; remove it (state folders are never followed "
                           "through links)") from e
    try:
        info = os.fstat(fd)
        if info.st_uid != os.geteuid():
            raise UnsafeFolder(f"{path} belongs to uid {info.st_uid}, not to this user "
                               f"({os.geteuid()}): another user created it first; remove it "
                               "or point agentgym at another folder")
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o022:
            raise UnsafeFolder(f"{path} is writable by other users (mode {mode:04o}): what is "
                               "in it cannot be trusted; remove it")
        if mode & 0o077:
            os.fchmod(fd, 0o700)
    finally:
        os.close(fd)
    return path


__all__ = ["private_dir", "user_tmp_dir"]
