"""The proxy that refuses: every connection of a browser context outside its allowed origins.

Request interception (Playwright's ``context.route``) sees HTTP requests only. A page script can
also open a WebSocket, a WebRTC connection (STUN and TURN over UDP, TURN and ICE over TCP) or a
preconnect, none of which it sees. So each context is created with a proxy: an
:class:`EgressGate` listening on a loopback port of its own, with the context's allowed hosts and
ports as Chromium's proxy bypass rules (``NetworkPolicy.bypass_rules``; Playwright adds
``<-loopback>`` so that loopback is proxied too). Allowed traffic connects directly, as before;
everything else Chromium sends to the gate, which reads the request head, counts it on the
session's policy (``CONNECT host:port`` as ``tcp://host:port``, a plain request by its URL),
answers ``403`` and closes. Nothing is forwarded, so the gate is not a way out either.

UDP has no proxy: the browser is launched with
``--force-webrtc-ip-handling-policy=disable_non_proxied_udp`` (:data:`EGRESS_SWITCHES`), so
WebRTC sends no UDP at all and uses TCP through the proxy, which the gate refuses. What a page
loses: WebSocket and WebRTC to anything but its allowed origins (same-origin WebSockets work),
and peer-to-peer WebRTC over UDP entirely.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)

EGRESS_SWITCHES = ("--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
                   "--webrtc-ip-handling-policy=disable_non_proxied_udp")
"""Chromium switches that keep WebRTC off UDP (TCP through the context's proxy only)."""
HEAD_LIMIT = 16 * 1024
"""Most bytes of a request head the gate reads before it answers."""
HEAD_TIMEOUT_S = 10.0
"""A connection that sends no complete request head within this time is closed (counted)."""
_BODY = b"blocked by the episode's network policy\n"
REFUSAL = (b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
           b"Content-Length: " + str(len(_BODY)).encode() + b"\r\n\r\n" + _BODY)
"""The gate's only answer."""


class EgressGate:
    """A loopback listener serving as one browser context's proxy; it refuses and counts
    every connection it gets (see the module docs)."""

    def __init__(self, on_block: Callable[[str], None]) -> None:
        self.on_block = on_block
        """Called with ``tcp://host:port`` or the request URL for each refused connection."""
        self._server: asyncio.Server | None = None
        self.port = 0
        self.refused = 0
        """Connections refused so far (also those whose head never arrived)."""

    async def start(self) -> EgressGate:
        """Listen on ``127.0.0.1`` on a free port."""
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0,
                                                  limit=HEAD_LIMIT)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    @property
    def proxy_server(self) -> str:
        """The proxy URL to give the browser context."""
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        target = "tcp://unknown"
        try:
            line = await asyncio.wait_for(reader.readline(), HEAD_TIMEOUT_S)
            parts = line.decode("latin-1").split()
            if len(parts) >= 2:
                method, where = parts[0].upper(), parts[1]
                target = f"tcp://{where}" if method == "CONNECT" else where
            with contextlib.suppress(TimeoutError, ValueError, asyncio.LimitOverrunError):
                await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
            writer.write(REFUSAL)
            await asyncio.wait_for(writer.drain(), HEAD_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError, asyncio.IncompleteReadError,
                asyncio.LimitOverrunError) as e:
            logger.debug("egress gate: %s", e)
        finally:
            self.refused += 1
            try:
                self.on_block(target)
            except Exception as e:  # a counter must never break the gate
                logger.debug("egress gate counter failed: %s", e)
            writer.close()
            with contextlib.suppress(OSError, asyncio.CancelledError):
                await writer.wait_closed()

    async def aclose(self) -> None:
        """Stop listening (open connections are dropped)."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
            if hasattr(server, "close_clients"):
                server.close_clients()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 5.0)


__all__ = ["EGRESS_SWITCHES", "HEAD_LIMIT", "EgressGate"]
