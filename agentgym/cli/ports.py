"""Checking a TCP port before a server announces itself on it (``serve``, ``gateway``).

uvicorn reports a busy port only after the command has printed where it serves (and, for the
gateway, after the model loaded); :func:`require_free_port` binds the address first, the way
uvicorn will, and fails in one line with a free port to pass instead.
"""

from __future__ import annotations

import errno
import socket

from .app import fail

_SEARCH = 50
"""Ports after the busy one tried for the hint."""


def _bind_error(host: str, port: int) -> OSError | None:
    """The error binding ``host:port`` raises now (None: the port is free)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        return OSError(errno.EADDRNOTAVAIL, f"cannot resolve {host}: {e.strerror}")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind(address)
        except OSError as e:
            return e
    return None


def free_port_after(host: str, port: int) -> int | None:
    """The first free port after ``port`` on ``host`` (None when the next few are all busy)."""
    for candidate in range(port + 1, min(port + 1 + _SEARCH, 65536)):
        if _bind_error(host, candidate) is None:
            return candidate
    return None


def require_free_port(host: str, port: int, option: str = "--port") -> None:
    """Exit with one error line when ``host:port`` cannot be bound (busy, or not an address)."""
    error = _bind_error(host, port)
    if error is None:
        return
    if error.errno == errno.EADDRINUSE:
        other = free_port_after(host, port)
        hint = f"pass {option} {other}" if other else f"pass another {option}"
        fail(f"port {port} on {host} is already in use (another server is running there?): "
             f"{hint}, or stop the other server")
    if error.errno == errno.EACCES:
        fail(f"port {port} on {host} needs privileges to bind: pass {option} 1024 or above")
    fail(f"cannot listen on {host}:{port}: {error.strerror or error}")


__all__ = ["free_port_after", "require_free_port"]
