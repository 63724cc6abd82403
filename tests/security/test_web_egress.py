"""Attacks on the browser sandbox's egress, from a page script on an allowed origin.

Threat: a page the episode may load (an allowed origin, or content injected into it) tries to
reach another loopback port (a local service, another episode's site, `agentgym serve`) over a
protocol the request interception does not see: WebSocket, WebRTC (STUN and TURN over UDP, TURN
over TCP, a peer's ICE candidates), a preconnect. Each test runs real Chromium and proves the
attack failed by a loopback TCP and UDP listener that must never be hit, and checks that the
attempts are counted in the policy's ``blocked`` counter (``info["blocked_requests"]``).
"""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from agentgym.sandboxes.browser import BrowserPool, NetworkPolicy, chromium_available

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not chromium_available(), reason="Chromium or Playwright not installed"),
]


@dataclass
class Listener:
    """A loopback TCP and UDP port pair that records every connection and datagram."""

    tcp_port: int = 0
    udp_port: int = 0
    hits: list[str] = field(default_factory=list)
    _socks: list[socket.socket] = field(default_factory=list)

    def start(self) -> Listener:
        """Bind both sockets on 127.0.0.1 and serve them from daemon threads."""
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(16)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        self.tcp_port, self.udp_port = tcp.getsockname()[1], udp.getsockname()[1]
        self._socks = [tcp, udp]
        threading.Thread(target=self._accept, args=(tcp,), daemon=True).start()
        threading.Thread(target=self._receive, args=(udp,), daemon=True).start()
        return self

    def _accept(self, sock: socket.socket) -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            self.hits.append("tcp")
            conn.close()

    def _receive(self, sock: socket.socket) -> None:
        while True:
            try:
                sock.recvfrom(4096)
            except OSError:
                return
            self.hits.append("udp")

    def close(self) -> None:
        """Close both sockets (their threads end)."""
        for sock in self._socks:
            sock.close()


class _Page(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:  # noqa: N802 -- http.server's naming
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[Listener]:
    """The forbidden target: a TCP and a UDP port on loopback that count what reaches them."""
    target = Listener().start()
    yield target
    target.close()


@pytest.fixture
def serve_page() -> Iterator[object]:
    """``serve_page(html) -> origin``: an allowed loopback server answering every GET with
    ``html``."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def serve(html: str) -> str:
        handler = type("Page", (_Page,), {"body": html.encode()})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


async def _attack(serve_page, listener: Listener, script: str) -> NetworkPolicy:
    """Load a page running ``script`` (which sets ``window.done`` when its attempt is over)
    and wait until the attempt is over or the listener was hit; return the episode's policy."""
    origin = serve_page(f"<html><body><p>page</p><script>{script}</script></body></html>")
    async with BrowserPool(max_browsers=1, timeout_s=90) as pool:
        session = await pool.new_session(NetworkPolicy([origin]))
        await session.page.goto(origin + "/", wait_until="load")
        for _ in range(600):  # until done or hit; 60 s at most (generous: the 2-core machine)
            if listener.hits or await session.page.evaluate("window.done === true"):
                break
            await session.page.wait_for_timeout(100)
        policy = session.policy
        await session.aclose()
    return policy


async def test_websocket_to_another_loopback_port_never_connects(serve_page, listener) -> None:
    script = f"""
      const ws = new WebSocket('ws://127.0.0.1:{listener.tcp_port}/');
      ws.onopen = ws.onerror = ws.onclose = () => {{ window.done = true; }};"""
    policy = await _attack(serve_page, listener, script)
    assert listener.hits == []
    assert policy.blocked >= 1
    assert any(str(listener.tcp_port) in url for url in policy.blocked_urls)


async def test_secure_websocket_to_another_host_never_connects(serve_page, listener) -> None:
    script = f"""
      const ws = new WebSocket('wss://localhost:{listener.tcp_port}/x');
      ws.onopen = ws.onerror = ws.onclose = () => {{ window.done = true; }};"""
    policy = await _attack(serve_page, listener, script)
    assert listener.hits == []
    assert policy.blocked >= 1


_RTC = """
  const pc = new RTCPeerConnection({{iceServers: [{servers}]}});
  pc.createDataChannel('x');
  pc.onicegatheringstatechange = () => {{
    if (pc.iceGatheringState === 'complete') window.done = true; }};
  pc.createOffer().then(o => pc.setLocalDescription(o));"""


async def test_webrtc_stun_and_turn_over_udp_send_nothing(serve_page, listener) -> None:
    port = listener.udp_port
    servers = (f"{{urls: 'stun:127.0.0.1:{port}'}}, {{urls: 'turn:127.0.0.1:{port}"
               "?transport=udp', username: 'u', credential: 'p'}")
    await _attack(serve_page, listener, _RTC.format(servers=servers))
    assert listener.hits == []


async def test_webrtc_turn_over_tcp_never_connects_and_is_counted(serve_page, listener) -> None:
    servers = (f"{{urls: 'turn:127.0.0.1:{listener.tcp_port}?transport=tcp', username: 'u',"
               " credential: 'p'}")
    policy = await _attack(serve_page, listener, _RTC.format(servers=servers))
    assert listener.hits == []
    assert policy.blocked >= 1
    assert any(str(listener.tcp_port) in url for url in policy.blocked_urls)


@pytest.mark.slow  # ICE gives up on the fake peer only after about 30 s
async def test_webrtc_remote_candidates_are_never_contacted(serve_page, listener) -> None:
    """A page answers its own offer with a fake peer whose ICE candidates are the listener's
    UDP and TCP ports (connectivity checks would go straight to them)."""
    script = f"""
      const pc = new RTCPeerConnection();
      pc.createDataChannel('x');
      (async () => {{
        const offer = await pc.createOffer();
        await pc.setLocalDescription(offer);
        const mid = (offer.sdp.match(/a=mid:(\\S+)/) || [, '0'])[1];
        const answer = offer.sdp.replace(/a=setup:actpass/g, 'a=setup:active')
          .replace(/a=ice-ufrag:\\S+/g, 'a=ice-ufrag:abcd')
          .replace(/a=ice-pwd:\\S+/g, 'a=ice-pwd:abcdefghijklmnopqrstuvwx');
        await pc.setRemoteDescription({{type: 'answer', sdp: answer}});
        for (const c of [
            'candidate:1 1 udp 2122260223 127.0.0.1 {listener.udp_port} typ host',
            'candidate:2 1 tcp 1518280447 127.0.0.1 {listener.tcp_port} typ host'
              + ' tcptype passive']) {{
          await pc.addIceCandidate({{candidate: c, sdpMid: mid, sdpMLineIndex: 0}}).catch(() => 0);
        }}
        await pc.addIceCandidate(null).catch(() => 0);
        pc.oniceconnectionstatechange = () => {{
          if (['failed', 'closed'].includes(pc.iceConnectionState)) window.done = true; }};
        setTimeout(() => {{ window.done = true; }}, 30000);  // ICE gives up after ~30 s
      }})().catch(e => {{ window.error = String(e); window.done = true; }});"""
    await _attack(serve_page, listener, script)
    assert listener.hits == []


async def test_preconnect_to_another_port_never_connects(serve_page, listener) -> None:
    script = f"""
      for (const rel of ['preconnect', 'dns-prefetch', 'prefetch', 'preload']) {{
        const link = document.createElement('link');
        link.rel = rel; link.as = 'fetch';
        link.href = 'http://127.0.0.1:{listener.tcp_port}/' + rel;
        document.head.appendChild(link);
      }}
      fetch('/settle').catch(() => 0).finally(() => setTimeout(() => {{
        window.done = true; }}, 2000));"""
    await _attack(serve_page, listener, script)
    assert listener.hits == []


async def test_allowed_origin_websocket_still_reaches_its_server(serve_page) -> None:
    """The control: the same-origin connection is not broken by the egress block (the page's
    own server answers the upgrade with a plain 200, so the socket errors, but it arrives)."""
    hits: list[str] = []

    class Counting(_Page):
        body = (b"<script>const ws = new WebSocket(location.origin.replace('http', 'ws') +"
                b" '/ws'); ws.onerror = ws.onclose = () => { window.done = true; };</script>")

        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.path)
            super().do_GET()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        async with BrowserPool(max_browsers=1) as pool:
            session = await pool.new_session(NetworkPolicy([origin]))
            await session.page.goto(origin + "/", wait_until="load")
            await session.page.wait_for_function("window.done === true", timeout=60_000)
            await session.aclose()
    finally:
        server.shutdown()
        server.server_close()
    assert "/ws" in hits


def test_the_env_reports_refused_connections_as_blocked_requests(serve_page, listener) -> None:
    """Through a real web env: a WebSocket and TURN over TCP from the page are refused, the
    listener is never hit, and ``info["blocked_requests"]`` counts them."""
    from agentgym.envs.web import WebEnv

    origin = serve_page(f"""<html><body><button>b</button><script>
      new WebSocket('ws://127.0.0.1:{listener.tcp_port}/');
      const pc = new RTCPeerConnection({{iceServers: [{{
        urls: 'turn:127.0.0.1:{listener.tcp_port}?transport=tcp', username: 'u',
        credential: 'p'}}]}});
      pc.createDataChannel('x');
      pc.createOffer().then(o => pc.setLocalDescription(o));
    </script></body></html>""")

    class Page(WebEnv):
        def allowed_origins(self) -> list[str]:
            return [origin]

        async def setup_episode(self, options):
            await self.session.page.goto(origin + "/", wait_until="load")
            return "nothing", {}

        async def evaluate(self, action):
            return 0.0, False, {}

    env = Page()
    try:
        env.reset()
        blocked = 0
        for _ in range(100):  # each step is a look at the counter; the page's attempts are
            _, _, _, _, info = env.step("scroll [down]")  # asynchronous
            blocked = info["blocked_requests"]
            if blocked >= 2 or listener.hits:
                break
    finally:
        env.close()
    assert listener.hits == []
    assert blocked >= 2
