"""The front door of every agentgym server: Host, Origin, token, content type and body size.

One ASGI middleware, :class:`RequestGuard`, sits in front of the OpenEnv-style HTTP/WebSocket app,
the MCP streamable-HTTP app and the retriever service, so the three refuse the same requests with
the same statuses (those of the MCP SDK's DNS-rebinding protection)::

    Host not allowed (DNS rebinding)                    421
    Origin not allowed (a web page in a browser)        403
    bearer token missing or wrong                       401
    POST whose Content-Type is not application/json     415
    body over max_body_bytes (counted as it arrives)    413
    body not complete within body_timeout_s             408

An Origin passes only when it is the server's own: a loopback name on the port this server
listens on (from the ASGI scope), or an exact entry of ``allowed_origins``. Loopback is not a
trust boundary: any page the user opens can send requests to any loopback port, so a page on
another port (``http://127.0.0.1:3000``) is refused like any other site.

A WebSocket handshake that fails a check is answered with the same status (the ASGI
``websocket.http.response`` extension) or, where the server lacks it, refused with a 403.
A body is counted as its chunks arrive, so a chunked body without ``Content-Length`` is cut at
the limit too; the checked body is then replayed to the app.

:func:`guard_for` picks the settings for a bind address; :func:`check_bind` refuses a public
bind without ``allow_public``.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_BODY_BYTES = 4 * 2**20
"""Largest request body (and WebSocket message) a server reads: 4 MiB."""
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
DEFAULT_BODY_TIMEOUT_S = 30.0
"""Longest time a request body may take to arrive (a client that stalls is cut with 408)."""
_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}
TOKEN_ENV = "AGENTGYM_SERVE_TOKEN"
"""Environment variable holding the bearer token (server and clients)."""
_PORT = re.compile(r"^\d{1,5}$")


def is_loopback(host: str) -> bool:
    """Whether the bind address ``host`` is a loopback address or ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, allow_public: bool, what: str = "the server") -> None:
    """Refuse a non-loopback ``host`` unless ``allow_public`` (``--allow-public``) is given."""
    if not is_loopback(host) and not allow_public:
        raise ValueError(
            f"refusing to bind {host!r}: {what} runs what its clients send; pass --allow-public "
            "(allow_public=True) to expose it beyond this machine (a bearer token is then required)"
        )


def new_token() -> str:
    """A fresh random bearer token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def _origin(value: str, own_port: str | None = "") -> tuple[str, str, str] | None:
    """``(scheme, host, port)`` of an origin, the scheme's default port filled in; an entry
    without a port takes ``own_port`` (None: it matches nothing)."""
    scheme, sep, rest = value.strip().lower().partition("://")
    parts = _split_hostport(rest) if sep and "/" not in rest else None
    if parts is None:
        return None
    host, port = parts
    if port is None:
        port = _DEFAULT_PORTS.get(scheme) if own_port == "" else own_port
    return None if port is None else (scheme, host, port.lstrip("0") or "0")


def _split_hostport(value: str) -> tuple[str, str | None] | None:
    """``host[:port]`` split in two; None when the port is not a number."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[: end + 1], value[end + 1:]
    else:
        host, colon, port = value.partition(":")
        rest = f":{port}" if colon else ""
    if not rest:
        return host, None
    if not rest.startswith(":") or not _PORT.match(rest[1:]):
        return None
    return host, rest[1:]


@dataclass(frozen=True)
class GuardSettings:
    """What :class:`RequestGuard` lets through."""

    allowed_hosts: tuple[str, ...] | None = LOOPBACK_NAMES
    """Host header names (any port) accepted; None accepts any (a public bind with a token)."""
    allowed_origins: tuple[str, ...] = tuple(f"http://{h}" for h in LOOPBACK_NAMES)
    """Origins accepted; requests without Origin always pass. An entry with a port
    (``http://localhost:3000``) matches exactly; one without (``http://localhost``) matches
    that scheme and host on this server's own port only."""
    token: str | None = None
    """Bearer token every request must carry (``Authorization: Bearer ...``); None: none."""
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    """Largest request body read."""
    body_timeout_s: float | None = DEFAULT_BODY_TIMEOUT_S
    """Longest time the whole request body may take to arrive (None: no deadline)."""

    def host_ok(self, host: str | None) -> bool:
        """Whether the Host header names this server (not a rebinding name)."""
        if not host:
            return False
        parts = _split_hostport(host.strip().lower())
        if parts is None:
            return False
        return self.allowed_hosts is None or parts[0] in self.allowed_hosts

    def origin_ok(self, origin: str | None, port: int | None = None) -> bool:
        """Whether the Origin header (absent for non-browser clients) is allowed for a server
        listening on ``port`` (None: only entries with an explicit port can match)."""
        if origin is None:
            return True
        parsed = _origin(origin)
        if parsed is None:
            return False
        for allowed in self.allowed_origins:
            entry = _origin(allowed, own_port=None if port is None else str(port))
            if entry is not None and entry == parsed:
                return True
        return False

    def token_ok(self, authorization: str | None) -> bool:
        """Whether the Authorization header carries the token (always, when there is none)."""
        if self.token is None:
            return True
        scheme, _, given = (authorization or "").strip().partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), self.token.encode()
        )


def guard_for(
    host: str, *, token: str | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
) -> GuardSettings:
    """The settings for a server bound to ``host``: loopback names only, unless public.

    A public bind accepts any Host name (the token is what protects it) and must have a token.
    """
    if is_loopback(host):
        return GuardSettings(token=token, max_body_bytes=max_body_bytes)
    if not token:
        raise ValueError(f"a server bound to {host!r} needs a bearer token")
    return GuardSettings(allowed_hosts=None, token=token, max_body_bytes=max_body_bytes)


class RequestGuard:
    """ASGI middleware applying :class:`GuardSettings` to HTTP requests and WebSocket handshakes."""

    def __init__(self, app: Any, settings: GuardSettings | None = None) -> None:
        self.app = app
        self.settings = settings or GuardSettings()

    def _refusal(self, scope: dict[str, Any]) -> tuple[int, str] | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        s = self.settings
        if not s.host_ok(headers.get("host")):
            return 421, "invalid Host header: this server answers only to its own name"
        server = scope.get("server")
        port = server[1] if isinstance(server, tuple | list) and len(server) > 1 else None
        if not s.origin_ok(headers.get("origin"), port):
            return 403, "invalid Origin header: web pages may not call this server"
        if not s.token_ok(headers.get("authorization")):
            return 401, "missing or wrong bearer token (Authorization: Bearer <token>)"
        if scope["type"] == "http" and scope.get("method") == "POST":
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/json":
                return 415, "the body must be JSON (Content-Type: application/json)"
            length = headers.get("content-length")
            if length is not None and (not length.isdigit() or int(length) > s.max_body_bytes):
                return 413, f"request body over {s.max_body_bytes} bytes"
        return None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Check the request, then pass it (with its body read and counted) to the app."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            if scope["type"] == "http":
                await _send_json(send, *refusal)
            else:
                await _refuse_websocket(scope, receive, send, *refusal)
            return
        if scope["type"] == "http":
            try:
                async with asyncio.timeout(self.settings.body_timeout_s):
                    body = await _read_body(receive, self.settings.max_body_bytes)
            except TimeoutError:
                await _send_json(send, 408, "the request body did not arrive within "
                                            f"{self.settings.body_timeout_s:g} s")
                return
            if body is None:
                await _send_json(send, 413, f"request body over {self.settings.max_body_bytes} "
                                            "bytes")
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)


async def _read_body(receive: Any, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes ``limit`` bytes (nothing more is read)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Any) -> Any:
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # type: ignore[no-any-return]

    return replay


async def _send_json(send: Any, status: int, detail: str, kind: str = "http.response") -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="agentgym"'))
    if status in (408, 413):  # stop the client sending: the rest of the body is never read
        headers.append((b"connection", b"close"))
    await send({"type": f"{kind}.start", "status": status, "headers": headers})
    await send({"type": f"{kind}.body", "body": body})


async def _refuse_websocket(scope: dict[str, Any], receive: Any, send: Any, status: int,
                            detail: str) -> None:
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if "websocket.http.response" in scope.get("extensions", {}):
        await _send_json(send, status, detail, kind="websocket.http.response")
    else:  # an ASGI server without the extension answers a close before accept with 403
        await send({"type": "websocket.close", "code": 1008, "reason": detail[:120]})


__all__ = [
    "DEFAULT_BODY_TIMEOUT_S",
    "DEFAULT_MAX_BODY_BYTES",
    "LOOPBACK_NAMES",
    "TOKEN_ENV",
    "GuardSettings",
    "RequestGuard",
    "check_bind",
    "guard_for",
    "is_loopback",
    "new_token",
]
