"""Hide agentgym's own files from every bubblewrap namespace, in any install layout.

The sandboxes bind ``/usr`` (and, without Debian's python, the base interpreter's prefix) read
only. agentgym ships its task data as package data: the code family's reference solutions and
hidden tests, the GUI and web checkers' expectations. Installed system-wide (under
``/usr/local`` or ``/usr/lib/python3``, as many container images install packages), into a base
interpreter that the sandbox binds, or from a source tree kept under ``/usr``, those files would
be readable by the code a sandbox runs. :func:`mask_args` lays an empty read-only tmpfs over each
folder of the installed ``agentgym`` packages that lies inside a bound path, so the sandbox sees
an empty folder whatever the layout; a venv or a source tree outside the binds needs no mask (it
is not mounted at all). Nothing the sandbox runs imports agentgym, so the mask costs nothing.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Iterable
from pathlib import Path

PACKAGES = ("agentgym", "agentgym.envs", "agentgym.sandboxes")
"""The import packages whose folders hold agentgym's data (the last two are mapped folders in a
source tree, subfolders of ``agentgym`` once installed; the trainers hold no task data, and an
installed copy of them sits inside the masked ``agentgym`` folder anyway)."""


@functools.cache
def package_dirs() -> tuple[str, ...]:
    """The real (symlinks resolved) folders of :data:`PACKAGES` in this process."""
    found: list[str] = []
    for name in PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for location in (spec.submodule_search_locations or []) if spec else []:
            real = os.path.realpath(location)
            if real not in found:
                found.append(real)
    return tuple(found)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def mask_args(bound: Iterable[str], dirs: Iterable[str] | None = None) -> list[str]:
    """bwrap arguments that cover each of ``dirs`` (default :func:`package_dirs`) inside one of
    the ``bound`` host paths with an empty tmpfs, made read-only.

    Put them after the binds they cover. A bound path that is a symlink on the host is compared
    by its target, as bwrap follows it.
    """
    roots = [os.path.realpath(b) for b in bound]
    masked: list[str] = []
    for d in sorted(os.path.realpath(d) for d in (package_dirs() if dirs is None else dirs)):
        if not Path(d).is_dir() or not any(_inside(d, r) for r in roots):
            continue
        if not any(_inside(d, m) for m in masked):  # a folder inside a masked one is hidden
            masked.append(d)
    args: list[str] = []
    for d in masked:
        args += ["--perms", "0555", "--tmpfs", d, "--remount-ro", d]
    return args


__all__ = ["PACKAGES", "mask_args", "package_dirs"]
