"""Site state: template databases built once, and one copy of them per episode session.

Isolation design
----------------
Every site reads and writes a SQLite file chosen by the request's ``wa_session`` cookie (one
cookie for all six sites: cookies are shared across the ports of one loopback host). The env
gives each episode a fresh random session id; the first request of a session copies the site's
template database (a few hundred KB, about a millisecond) into ``<root>/<sid>/<site>.sqlite``, and
every later request of that session uses the copy. Concurrent episodes therefore never see each
other's writes, a reset is a new session id (no server restart), and the template files are only
ever opened read-only. Requests without the cookie use the session ``public``. The env drops a
session when its episode ends; sessions idle for an hour are removed by the server.

Template databases are generated deterministically by :mod:`.data_shop`, :mod:`.data_forum`,
:mod:`.data_gitlab` and :mod:`.data_map` into a cache folder keyed by :data:`DATA_VERSION`.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .data_forum import build_forum
from .data_gitlab import build_gitlab
from .data_map import build_map, build_wiki
from .data_shop import build_shop

DATA_VERSION = "4"
"""Bump when generated content changes; tasks are computed from the same version."""
SITES = ("shopping", "shopping_admin", "reddit", "gitlab", "map", "wikipedia")
"""WebArena's site names, in the order of their placeholders."""
BUILDERS: dict[str, Callable[[sqlite3.Connection], None]] = {
    "shopping": build_shop, "shopping_admin": build_shop, "reddit": build_forum,
    "gitlab": build_gitlab, "map": build_map, "wikipedia": build_wiki,
}
SESSION_COOKIE = "wa_session"
"""Cookie naming the episode session (its database copies)."""
PUBLIC_SESSION = "public"
_SID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def cache_dir() -> Path:
    """Folder of generated data: ``$AGENTGYM_WEBARENA_CACHE`` or ``~/.cache/agentgym/webarena``."""
    env = os.environ.get("AGENTGYM_WEBARENA_CACHE")
    root = Path(env) if env else Path.home() / ".cache" / "agentgym" / "webarena"
    return root / f"v{DATA_VERSION}"


def ensure_templates(folder: Path | None = None) -> dict[str, Path]:
    """Build the template database of every site (once; later calls only check the files)."""
    folder = folder or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    paths = {site: folder / f"{site}.sqlite" for site in SITES}
    if all(p.exists() for p in paths.values()):
        return paths
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for site, path in paths.items():
            if path.exists():
                continue
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            os.close(fd)
            conn = sqlite3.connect(tmp)
            try:
                BUILDERS[site](conn)
                conn.commit()
            finally:
                conn.close()
            os.replace(tmp, path)
    return paths


def open_template(site: str, folder: Path | None = None) -> sqlite3.Connection:
    """A read-only connection to a site's template database (for gold answers and tests)."""
    path = ensure_templates(folder)[site]
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def valid_session_id(sid: str) -> bool:
    """Whether ``sid`` is a well-formed session id."""
    return bool(_SID.match(sid))


class SessionStore:
    """Per-session copies of the site templates under ``root``."""

    def __init__(self, templates: dict[str, Path], root: Path) -> None:
        self.templates = templates
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._touched: dict[str, float] = {}

    def path(self, sid: str, site: str) -> Path:
        """The session's database file for ``site``, copied from the template on first use."""
        if not valid_session_id(sid):
            raise ValueError(f"bad session id {sid!r}")
        path = self.root / sid / f"{site}.sqlite"
        self._touched[sid] = time.monotonic()
        if not path.exists():
            with self._lock:
                if not path.exists():
                    path.parent.mkdir(exist_ok=True)
                    tmp = path.with_suffix(".tmp")
                    shutil.copyfile(self.templates[site], tmp)
                    os.replace(tmp, path)
        return path

    def connect(self, sid: str, site: str) -> sqlite3.Connection:
        """A connection to the session's copy of ``site`` (rows as :class:`sqlite3.Row`)."""
        conn = sqlite3.connect(self.path(sid, site), timeout=10, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        return conn

    def drop(self, sid: str) -> bool:
        """Delete a session's copies; False when it had none."""
        if not valid_session_id(sid) or sid == PUBLIC_SESSION:
            return False
        self._touched.pop(sid, None)
        folder = self.root / sid
        if not folder.exists():
            return False
        shutil.rmtree(folder, ignore_errors=True)
        return True

    def collect(self, max_idle_s: float = 3600.0) -> int:
        """Drop sessions idle for more than ``max_idle_s``; returns how many."""
        now = time.monotonic()
        stale = [s for s, t in list(self._touched.items()) if now - t > max_idle_s]
        return sum(self.drop(s) for s in stale)

    def sessions(self) -> list[str]:
        """Ids of the sessions that have copies on disk."""
        return sorted(p.name for p in self.root.iterdir() if p.is_dir())
