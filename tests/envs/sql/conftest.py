"""Fixtures for the SQL env tests, including a throwaway PostgreSQL cluster.

The cluster is started once per session with Debian's ``initdb`` and ``pg_ctl`` (run as the
``postgres`` user through ``runuser`` when the tests run as root), in a temporary directory, on
a free loopback port with its unix socket in that directory, and stopped at the end. Tests that
need it are marked ``postgres`` and skip with the reason when the server binaries are missing.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentgym.envs.sql.tasks import database_ids, database_path

RO_ROLE = "agentgym_ro"
RO_PASSWORD = "agentgym-test"


@dataclass(frozen=True)
class PgCluster:
    """A running throwaway cluster."""

    socket_dir: str
    port: int

    def conninfo(self, user: str = "postgres", password: str | None = None) -> str:
        """libpq connection string over the cluster's unix socket."""
        info = f"host={self.socket_dir} port={self.port} user={user} dbname=postgres"
        return info + (f" password={password}" if password else "")


def _server_bin() -> Path | None:
    """Folder holding ``initdb`` and ``pg_ctl``, or None."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[4]))
    for folder in reversed(candidates):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """Start a PostgreSQL cluster for the session; skip if the binaries are missing."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install agentgym[sql])")
    bin_dir = _server_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found; "
                    "install the Debian 'postgresql' package")
    prefix: list[str] = []
    root = tempfile.mkdtemp(prefix="agentgym-pg-")
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(root)
            pytest.skip("running as root but there is no 'postgres' user to run the server")
        if shutil.which("runuser") is None:
            shutil.rmtree(root)
            pytest.skip("running as root but 'runuser' is missing to start the server as postgres")
        os.chown(root, owner.pw_uid, owner.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    data = os.path.join(root, "data")
    port = _free_port()

    def run(*args: str) -> None:
        subprocess.run([*prefix, *args], check=True, capture_output=True, timeout=120)

    try:
        run(str(bin_dir / "initdb"), "-D", data, "--auth=trust", "--no-locale", "-E", "UTF8",
            "-U", "postgres", "--no-sync")
        options = (f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off")
        run(str(bin_dir / "pg_ctl"), "-D", data, "-o", options, "-l",
            os.path.join(root, "server.log"), "-w", "-t", "60", "start")
    except subprocess.CalledProcessError as e:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"could not start PostgreSQL: {e.stderr.decode(errors='replace')[-2000:]}")
    try:
        yield PgCluster(root, port)
    finally:
        subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", data, "-m", "immediate", "stop"],
                       capture_output=True, timeout=60, check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_loaded(pg_cluster: PgCluster) -> PgCluster:
    """The cluster with every bundled database loaded and the read-only role created."""
    import psycopg

    from agentgym.envs.sql.pgload import create_readonly_role, load_database

    with psycopg.connect(pg_cluster.conninfo(), autocommit=True) as admin:
        for db_id in database_ids():
            load_database(admin, database_path(db_id), db_id)
        create_readonly_role(admin, RO_ROLE, RO_PASSWORD, database_ids())
    return pg_cluster


@pytest.fixture(scope="session")
def ro_conninfo(pg_loaded: PgCluster) -> str:
    """Connection string of the read-only role."""
    return pg_loaded.conninfo(RO_ROLE, RO_PASSWORD)
