"""Attacks on the action-level URL check of the web envs: URLs that read one way to Python and
another way to the browser.

A ``goto`` is checked before the browser sees it; the check must read the URL as Chromium does
(the WHATWG URL standard) or a URL that looks allowed opens another port. Every tricky URL of
the table is refused or normalised to the allowed origin, the parser agrees with Chromium's own
``new URL()`` on every entry, and through a real env the listener behind the forbidden port is
never hit.
"""

from __future__ import annotations

import socket
import threading

import pytest

from agentgym.envs.web.executor import ActionFailed, check_url
from agentgym.sandboxes.browser import (
    BrowserPool,
    NetworkPolicy,
    URLError,
    chromium_available,
    parse_url,
)

ALLOWED = 41235
OTHER = 41299
ORIGIN = f"http://127.0.0.1:{ALLOWED}"

TRICKY = [
    f"http://127.0.0.1:{OTHER}\\@127.0.0.1:{ALLOWED}/",      # backslash ends the authority
    f"http://127.0.0.1:{OTHER}\\\\@127.0.0.1:{ALLOWED}/x",
    f"http://127.0.0.1:{ALLOWED}@127.0.0.1:{OTHER}/",        # user info
    f"http://u:p@127.0.0.1:{ALLOWED}/",                       # user info on the allowed host
    f"http://127.0.0.1:{OTHER}#@127.0.0.1:{ALLOWED}/",
    f"http://127.0.0.1:{OTHER}?@127.0.0.1:{ALLOWED}/",
    f"http:\\\\127.0.0.1:{OTHER}/",
    f"http:/127.0.0.1:{OTHER}/",
    f"http:127.0.0.1:{OTHER}/",
    f"http:////127.0.0.1:{OTHER}/",
    f"http://2130706433:{OTHER}/",                            # decimal
    f"http://0x7f.1:{OTHER}/",                                # hex, two parts
    f"http://017700000001:{OTHER}/",                          # octal
    f"http://0177.0.0.1:{OTHER}/",
    f"http://127.1:{OTHER}/",
    f"http://0x7f000001:{OTHER}/",
    f"http://127.0.0.%31:{OTHER}/",                           # percent-encoded host
    f"http://127\u30020\u30020\u30021:{OTHER}/",              # ideographic full stops
    f"http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:{OTHER}/",  # full-width
    f"http://LOCALHOST:{OTHER}/",
    f"http://[::1]:{ALLOWED}/",                                # IPv6 loopback: another host
    f"http://[::ffff:127.0.0.1]:{ALLOWED}/",
    f"http://[0:0:0:0:0:0:0:1]:{OTHER}/",
    f"http://0.0.0.0:{ALLOWED}/",
    f"http://127.0.0.1:{ALLOWED + 65536}/",                   # port overflow
    f"http://127.0.0.1:0{OTHER}/",
    f"http://127.0.0.1:{OTHER}\t/",
    f"ht\ttp://127.0.0.1:{OTHER}/",
    f"http://127.0.0.1:{OTHER}\n@127.0.0.1:{ALLOWED}/",
    f"\x01 http://127.0.0.1:{OTHER}/",
    f"ws://127.0.0.1:{ALLOWED}/",
    f"javascript:location='http://127.0.0.1:{OTHER}/'",
    "file:///etc/passwd",
    f"data:text/html,<script>location='http://127.0.0.1:{OTHER}/'</script>",
    f"blob:http://127.0.0.1:{ALLOWED}/x",
    f"//127.0.0.1:{OTHER}/",
    f"http://127.0.0.1:{ALLOWED}.evil.com/",
    f"http://evil.com:{ALLOWED}/",
    f"http://127.0.0.1.:{OTHER}/",
    f"http://127.0.0.1 :{OTHER}/",
    f"http://xn--:{OTHER}/",
    f"http://127.0.0.1:{ALLOWED}\\.evil.com/",                # allowed host, odd path
    f"http://0x7f.0.0.1:{ALLOWED}/",                          # allowed host in hex
    f"http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:{ALLOWED}/",
    f"http://127.0.0.1:0{ALLOWED}/",
    f"HTTP://127.0.0.1:{ALLOWED}/ok",
    f"http://127.0.0.1:{ALLOWED}/\\..\\x?q=\\#f",
]

FAIL_CLOSED = {f"http://127.0.0.1 :{OTHER}/", f"http://xn--:{OTHER}/"}
"""Hosts the standard calls invalid (a space; an empty punycode label) that Chromium still
reads (``127.0.0.1%20``, ``xn--``): refused here."""


def _allowed_origin(url: str) -> str | None:
    """The origin of the URL check's answer, or None when it refused."""
    policy = NetworkPolicy([ORIGIN])
    try:
        return parse_url(check_url(url, policy.allows)).origin
    except ActionFailed:
        return None


@pytest.mark.parametrize("url", TRICKY, ids=lambda u: repr(u)[:60])
def test_tricky_url_is_refused_or_normalised_to_the_allowed_origin(url: str) -> None:
    assert _allowed_origin(url) in (None, ORIGIN, ORIGIN.replace("127.0.0.1", "localhost"))


@pytest.mark.parametrize("url", [
    f"http://127.0.0.1:{OTHER}\\@127.0.0.1:{ALLOWED}/",
    f"http://127.0.0.1:{ALLOWED}@127.0.0.1:{OTHER}/",
    f"http://2130706433:{OTHER}/",
    f"http://0x7f.1:{OTHER}/",
    f"http://017700000001:{OTHER}/",
])
def test_urls_reaching_the_other_port_are_refused(url: str) -> None:
    assert _allowed_origin(url) is None


@pytest.mark.parametrize("url, expected", [
    (f"http://0x7f.0.0.1:{ALLOWED}/a", f"{ORIGIN}/a"),
    (f"HTTP://127.0.0.1:0{ALLOWED}\\a\\b?x=\\#y", f"{ORIGIN}/a/b?x=\\#y"),
    (f"http://127.0.0.1:{ALLOWED}\\.evil.com/", f"{ORIGIN}/.evil.com/"),
    (f"  http://127.0.0.1:{ALLOWED}/p\n", f"{ORIGIN}/p"),
])
def test_allowed_urls_are_opened_in_canonical_form(url: str, expected: str) -> None:
    assert check_url(url, NetworkPolicy([ORIGIN]).allows) == expected


def test_unreadable_urls_raise_url_error() -> None:
    for url in ("http://", "http://[::1/", "http://a:b:c/", "http://1.2.3.4.5/",
                "http://256.1.1.1/", "http://0x100000000/", "http://09/", "mailto:x@y"):
        with pytest.raises(URLError):
            parse_url(url)


@pytest.mark.browser
@pytest.mark.skipif(not chromium_available(), reason="Chromium or Playwright not installed")
async def test_the_parser_agrees_with_chromium() -> None:
    """Differential: for every URL of the table, Chromium's ``new URL(u)`` (or its refusal)
    and :func:`parse_url` agree on scheme, host, port and user info; the only differences
    allowed are :data:`FAIL_CLOSED` hosts, which Chromium reads leniently and we refuse."""
    async with BrowserPool(max_browsers=1) as pool:
        session = await pool.new_session()
        chromium = await session.page.evaluate("""urls => urls.map(u => {
            try { const x = new URL(u), info = !!(x.username || x.password);
                  return [x.protocol.slice(0, -1), x.hostname, x.port, info];
            } catch (e) { return null; } })""", TRICKY)
        await session.aclose()
    disagree = []
    for url, theirs in zip(TRICKY, chromium, strict=True):
        try:
            p = parse_url(url)
            ours = [p.scheme, p.host, str(p.port), bool(p.userinfo)]
        except URLError:
            ours = None
        if theirs is not None and theirs[0] in ("http", "https", "ws", "wss"):
            theirs[2] = theirs[2] or {"http": "80", "https": "443", "ws": "80", "wss": "443"}[
                theirs[0]]
        elif theirs is not None:
            theirs = None  # a scheme without a network host: parse_url refuses it
        if ours != theirs and not (ours is None and url in FAIL_CLOSED):
            disagree.append((url, ours, theirs))
    assert disagree == []


@pytest.mark.browser
@pytest.mark.skipif(not chromium_available(), reason="Chromium or Playwright not installed")
def test_goto_through_the_env_never_reaches_the_other_port() -> None:
    """End to end: the tricky ``goto`` actions of the table, through a real web env, give an
    error observation and the listener on the forbidden port is never hit."""
    from agentgym.envs.web import WebEnv

    hits: list[str] = []
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    other = sock.getsockname()[1]

    def accept() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            hits.append("tcp")
            conn.close()

    threading.Thread(target=accept, daemon=True).start()

    class Blank(WebEnv):
        def allowed_origins(self) -> list[str]:
            return [f"http://127.0.0.1:{ALLOWED}"]

        async def setup_episode(self, options):
            return "nothing", {}

        async def evaluate(self, action):
            return 0.0, False, {}

    env = Blank()
    try:
        env.reset()
        errors = []
        for url in TRICKY[:20]:
            url = url.replace(str(OTHER), str(other))
            _, _, _, _, info = env.step(f"goto [{url}]".replace("\n", " "))
            errors.append(info.get("error", ""))
    finally:
        env.close()
        sock.close()
    assert hits == []
    assert all(errors), errors
