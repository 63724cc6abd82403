"""Serve the six bundled sites on loopback, one uvicorn server per site in one process.

:func:`ensure_sites` is what envs call: under a file lock it reuses the running server of this
checkout (recorded in ``<runtime>/servers.json``; the default runtime folder is keyed to the
checkout's path and version, see :func:`runtime_dir`) or starts one as a detached subprocess, so
every worker process and every env of one checkout shares one set of sites. The server exits by
itself after ``idle_exit_s`` (30 minutes) without requests; a process that used it says so at
exit with the command that stops it at once (``--stop``, or :func:`stop_sites`).

Run it by hand with ``python -m agentgym.envs.webarena.sites.server --runtime DIR``.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import functools
import hashlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from agentgym.private_dirs import private_dir

from .state import SITES, SessionStore, ensure_templates

logger = logging.getLogger(__name__)

STATE_FILE = "servers.json"
Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]


@dataclass(frozen=True)
class SiteServer:
    """A running set of sites: the server's pid and each site's base URL."""

    pid: int
    urls: dict[str, str]
    """WebArena site name -> ``http://127.0.0.1:PORT``."""
    sessions_root: str

    def url(self, site: str) -> str:
        """Base URL of ``site``."""
        return self.urls[site]


IDLE_EXIT_S = 1800.0
"""A server with no request for this long exits by itself."""
_STARTED_HERE: set[int] = set()
"""Pids of the servers this process started (the others are reused, and said so)."""
_SAID_REUSED: set[int] = set()


def checkout_source() -> str:
    """The folder these sites' code is served from (one checkout or installation)."""
    return str(Path(__file__).resolve().parent)


@functools.cache
def _version() -> str:
    """The package version and a hash of the site sources (code and generated data): a server
    started before the sites were edited is never reused by the edited checkout."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return f"{_package_version()}+sites.{digest.hexdigest()[:10]}"


def _package_version() -> str:
    from agentgym import __version__

    return __version__


def checkout_key(source: Path | None = None, version: str | None = None) -> str:
    """A short key of a checkout's path and package version: two checkouts (or two versions
    of one) never share a server, whose code and data could differ."""
    text = f"{source or checkout_source()}|{version or _version()}"
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def runtime_dir() -> Path:
    """``$AGENTGYM_WEBARENA_RUNTIME``, else ``<tmp>/agentgym-webarena-<uid>-<checkout key>``."""
    env = os.environ.get("AGENTGYM_WEBARENA_RUNTIME")
    if env:
        return Path(env)
    return Path(tempfile.gettempdir()) / f"agentgym-webarena-{os.getuid()}-{checkout_key()}"


def stop_command(folder: Path) -> str:
    """The shell command that stops the server of ``folder``."""
    return f"{Path(sys.executable).name} -m agentgym.envs.webarena.sites.server --stop " \
           f"--runtime {folder}"


def left_running_message(folder: Path | None = None) -> str | None:
    """What to tell a user whose process leaves the server of ``folder`` running (None when
    none is running)."""
    folder = folder or runtime_dir()
    state = _read_state(folder)
    if state is None or not _alive(state.pid):
        return None
    return (f"the WebArena sites server (pid {state.pid}) keeps running for other envs of this "
            f"checkout and exits after {IDLE_EXIT_S / 60:.0f} min without requests; "
            f"stop it now with: {stop_command(folder)}")


def app_for(site: str, store: SessionStore) -> Any:
    """The Starlette app of ``site``."""
    from . import forum, gitlab, maps, shopping, shopping_admin, wiki

    makers = {"shopping": shopping.make_app, "shopping_admin": shopping_admin.make_app,
              "reddit": forum.make_app, "gitlab": gitlab.make_app, "map": maps.make_app,
              "wikipedia": wiki.make_app}
    return makers[site](store)


def _alive(pid: int) -> bool:
    try:  # a server this process started and stopped is a zombie until reaped: reap it
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:  # not our child: its parent reaps it
        pass
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _healthy(server: SiteServer, timeout: float = 2.0) -> bool:
    try:
        return all(httpx.get(f"{u}/__agentgym__/health", timeout=timeout).status_code == 200
                   for u in server.urls.values())
    except httpx.HTTPError:
        return False


def _read_state(folder: Path) -> SiteServer | None:
    try:
        data = json.loads((folder / STATE_FILE).read_text())
        return SiteServer(int(data["pid"]), dict(data["urls"]), str(data["sessions_root"]))
    except (OSError, ValueError, KeyError):
        return None


def _owner(folder: Path) -> tuple[str, str]:
    """The checkout and version recorded by the server of ``folder``."""
    try:
        data = json.loads((folder / STATE_FILE).read_text())
        return str(data.get("checkout", "")), str(data.get("version", ""))
    except (OSError, ValueError):
        return "", ""


def _reuse(folder: Path, current: SiteServer | None) -> SiteServer | None:
    """``current`` when it is a live, healthy server of this checkout (said so once when
    another process started it); raises when it belongs to another checkout or version."""
    if current is None or not _alive(current.pid) or not _healthy(current):
        return None
    checkout, version = _owner(folder)
    if (checkout, version) != (checkout_source(), _version()):
        raise RuntimeError(
            f"the WebArena sites server in {folder} (pid {current.pid}) belongs to another "
            f"checkout ({checkout or '?'}, agentgym {version or '?'}); stop it with "
            f"{stop_command(folder)} or set AGENTGYM_WEBARENA_RUNTIME to another folder")
    if current.pid not in _STARTED_HERE | _SAID_REUSED:  # the process that started it said so
        _SAID_REUSED.add(current.pid)
        logger.info("reusing the WebArena sites server (pid %d) of this checkout, started "
                    "earlier; stop it with: %s", current.pid, stop_command(folder))
    return current


def ensure_sites(folder: Path | None = None, timeout_s: float = 60.0) -> SiteServer:
    """The running sites of this checkout, started (once, under a lock) when none answer.

    A server left by another checkout or version in the same folder is never reused (its
    code could differ): that is an error naming how to stop it. Starting the server is one
    line on stderr (that it keeps running for other envs, for how long, how to stop it);
    reusing one and exiting print nothing.
    """
    folder = private_dir(folder or runtime_dir(), parents=True)
    reused = _reuse(folder, _read_state(folder))
    if reused is not None:
        return reused
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        reused = _reuse(folder, _read_state(folder))
        if reused is not None:
            return reused
        (folder / STATE_FILE).unlink(missing_ok=True)
        ensure_templates()
        log = open(folder / "server.log", "ab")  # noqa: SIM115 - handed to the child
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentgym.envs.webarena.sites.server", "--runtime",
             str(folder)], stdout=log, stderr=log, stdin=subprocess.DEVNULL,
            start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            state = _read_state(folder)
            if state is not None and state.pid == proc.pid and _healthy(state):
                _STARTED_HERE.add(proc.pid)
                logger.warning("started the WebArena sites server (pid %d); it serves this "
                               "checkout's envs and exits after %.0f min without requests "
                               "(stop it now with: %s)", proc.pid, IDLE_EXIT_S / 60,
                               stop_command(folder))
                return state
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        proc.kill()
        raise RuntimeError(f"the bundled sites did not start; see {folder / 'server.log'}")


def stop_sites(folder: Path | None = None) -> bool:
    """Stop this user's site server; False when none was running."""
    folder = folder or runtime_dir()
    state = _read_state(folder)
    (folder / STATE_FILE).unlink(missing_ok=True)
    if state is None or not _alive(state.pid):
        return False
    os.kill(state.pid, signal.SIGTERM)
    for _ in range(100):
        if not _alive(state.pid):
            break
        time.sleep(0.05)
    return True


class _Activity:
    """ASGI wrapper that records the time of the last request."""

    last = time.monotonic()

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        _Activity.last = time.monotonic()
        await self.app(scope, receive, send)


def _bind(port: int) -> socket.socket:
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY only on such sockets; without it a keep-alive
    # response written in two parts waits 40 ms for the browser's delayed ACK (Nagle)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(256)
    return sock


async def serve(folder: Path, ports: dict[str, int] | None = None,
                idle_exit_s: float = IDLE_EXIT_S) -> None:
    """Run every site until SIGTERM or ``idle_exit_s`` without a request."""
    import uvicorn

    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else folder
    root = Path(tempfile.mkdtemp(prefix=f"agentgym-webarena-{os.getpid()}-", dir=base))
    store = SessionStore(ensure_templates(), root)
    servers, urls = [], {}
    for site in SITES:
        sock = _bind((ports or {}).get(site, 0))
        config = uvicorn.Config(_Activity(app_for(site, store)), log_level="warning",
                                access_log=False, lifespan="off")
        server = uvicorn.Server(config)
        servers.append((server, sock))
        urls[site] = f"http://127.0.0.1:{sock.getsockname()[1]}"
    tasks = [asyncio.create_task(s.serve(sockets=[sock])) for s, sock in servers]
    tmp = folder / f".{STATE_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps({"pid": os.getpid(), "urls": urls, "sessions_root": str(root),
                               "checkout": checkout_source(), "version": _version()}))
    os.replace(tmp, folder / STATE_FILE)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    try:
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), 30)
            except TimeoutError:
                store.collect()
                if time.monotonic() - _Activity.last > idle_exit_s:
                    logger.warning("no request for %.0f s; exiting", idle_exit_s)
                    break
    finally:
        for s, _ in servers:
            s.should_exit = True
        await asyncio.gather(*tasks, return_exceptions=True)
        import shutil

        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    """Command line: ``--runtime DIR [--port site=PORT ...] [--idle-exit-s S]``, or
    ``--stop [--runtime DIR]`` to stop the running server."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runtime", type=Path, default=runtime_dir())
    parser.add_argument("--port", action="append", default=[], help="site=PORT")
    parser.add_argument("--idle-exit-s", type=float, default=IDLE_EXIT_S)
    parser.add_argument("--stop", action="store_true", help="Stop the running server and exit.")
    args = parser.parse_args(argv)
    if args.stop:
        state = _read_state(args.runtime)
        if stop_sites(args.runtime) and state is not None:
            sys.stdout.write(f"stopped the WebArena sites server (pid {state.pid})\n")
        else:
            sys.stdout.write(f"no WebArena sites server was running in {args.runtime}\n")
        return
    ports = {k: int(v) for k, v in (p.split("=", 1) for p in args.port)}
    logging.basicConfig(level=logging.WARNING)
    private_dir(args.runtime, parents=True)
    asyncio.run(serve(args.runtime, ports, args.idle_exit_s))


if __name__ == "__main__":
    main()
