"""bubblewrap argv pieces shared by the ``bubblewrap`` sandbox and the gateway's agent jail.

The core holds them so that both can use one copy: the sandbox backends depend on the core,
and the core (the gateway) never imports a backend.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

MERGED_USR_TOPS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Top-level folders that are links into ``/usr`` on a merged-usr system (folders elsewhere)."""


def system_binds(etc: Sequence[str]) -> list[str]:
    """Read-only binds of the system: ``/usr``, the merged-usr links (or folders) as they are
    on the host, and the ``etc`` files and folders that exist."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in MERGED_USR_TOPS:
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    for item in etc:
        args += ["--ro-bind-try", item, item]
    return args


__all__ = ["MERGED_USR_TOPS", "system_binds"]
