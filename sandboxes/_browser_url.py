"""URLs read the way the browser reads them (the WHATWG URL standard), for the egress checks.

A check that reads a URL differently from Chromium lets an agent through: Python's ``urlsplit``
takes ``http://127.0.0.1:1\\@127.0.0.1:8000/`` for host ``127.0.0.1:8000`` while Chromium, for
which a backslash ends the authority, connects to port 1. :func:`parse_url` follows the
standard's steps for the special schemes (``http``, ``https``, ``ws``, ``wss``): tabs and
newlines removed, backslashes as slashes, any number of slashes after the scheme, the last ``@``
ending the user info, percent-decoded hosts, IDNA (UTS #46, non-transitional) and IPv4 hosts in
decimal, octal and hex with one to four parts (``http://2130706433/``, ``http://0x7f.1/``), IPv6
in brackets, ports of up to 65535. What it cannot read is refused, never guessed.

:meth:`ParsedURL.serialize` writes the canonical form. The action-level check navigates to that
form rather than to the agent's text, so the origin checked and the origin loaded are the same
even where this parser and Chromium's might disagree.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

SPECIAL_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
"""The special schemes of the URL standard that have a network host, with their default
ports (``ftp`` and ``file`` are never allowed and so are not parsed)."""
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_FORBIDDEN_HOST = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")
_HEX = re.compile(r"^0[xX][0-9A-Fa-f]*$")


class URLError(ValueError):
    """The URL cannot be read (or has a part the checks refuse to guess about)."""


@dataclass(frozen=True)
class ParsedURL:
    """A URL of a special scheme, split as the browser splits it."""

    scheme: str
    """Lower case: ``http``, ``https``, ``ws`` or ``wss``."""
    userinfo: str
    """What came before the last ``@`` of the authority (empty when there was none)."""
    host: str
    """ASCII and lower case: a domain, a dotted-decimal IPv4 address or ``[ipv6]``."""
    port: int
    """The port, the scheme's default when none was given."""
    rest: str
    """Path, query and fragment as given (backslashes of the path made slashes)."""

    @property
    def origin(self) -> str:
        """``scheme://host:port`` with the port always written."""
        return f"{self.scheme}://{self.host}:{self.port}"

    def serialize(self) -> str:
        """The canonical URL without the user info (the default port left out)."""
        port = "" if self.port == SPECIAL_PORTS[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{self.host}{port}{self.rest or '/'}"


def parse_url(url: str) -> ParsedURL:
    """Split ``url`` as the URL standard does; raise :class:`URLError` when it cannot be read
    or its scheme is not one of :data:`SPECIAL_PORTS`."""
    text = url.strip("".join(map(chr, range(0x21)))).translate({9: None, 10: None, 13: None})
    match = _SCHEME.match(text)
    if not match:
        raise URLError("not an absolute URL")
    scheme = match.group(1).lower()
    if scheme not in SPECIAL_PORTS:
        raise URLError(f"scheme {scheme!r} has no network host here")
    after = text[match.end():].lstrip("/\\")
    end = len(after)
    for i, char in enumerate(after):
        if char in "/\\?#":
            end = i
            break
    authority, rest = after[:end], after[end:]
    userinfo, _, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            raise URLError("unclosed IPv6 address")
        raw_host, tail = hostport[:close + 1], hostport[close + 1:]
        if tail and not tail.startswith(":"):
            raise URLError("text after the IPv6 address")
        port_text = tail[1:]
        has_port = bool(tail)
    else:
        raw_host, separator, port_text = hostport.partition(":")
        has_port = bool(separator)
    host = parse_host(raw_host)
    port = SPECIAL_PORTS[scheme]
    if has_port and port_text:
        if not port_text.isascii() or not port_text.isdigit():
            raise URLError(f"port {port_text[:20]!r} is not a number")
        port = int(port_text)
        if port > 65535:
            raise URLError(f"port {port} is out of range")
    cut = min([i for i in (rest.find("?"), rest.find("#")) if i >= 0], default=len(rest))
    rest = rest[:cut].replace("\\", "/") + rest[cut:]
    return ParsedURL(scheme, userinfo, host, port, rest)


def parse_host(raw: str) -> str:
    """A host as the URL standard reads it for a special scheme: ``[ipv6]``, an IPv4 address
    in any of its number forms (written dotted decimal), or an IDNA domain in ASCII."""
    if not raw:
        raise URLError("empty host")
    if raw.startswith("["):
        inner = raw[1:-1]
        if "%" in inner:
            raise URLError("IPv6 zone ids are not URLs")
        try:
            return f"[{ipaddress.IPv6Address(inner).compressed}]"
        except ValueError as e:
            raise URLError(f"bad IPv6 address {inner[:60]!r}") from e
    try:
        decoded = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError as e:
        raise URLError("host is not UTF-8 once percent-decoded") from e
    domain = _to_ascii(decoded)
    if _FORBIDDEN_HOST.search(domain):
        raise URLError(f"forbidden character in host {domain[:60]!r}")
    labels = domain.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    if last.isdigit() or _HEX.match(last):  # "ends in a number": an IPv4 address or nothing
        return _ipv4(labels)
    return domain


def _to_ascii(domain: str) -> str:
    """UTS #46 processing (non-transitional, as browsers do); ASCII hosts are lowered."""
    if domain.isascii() and "xn--" not in domain.lower():
        return domain.lower()
    import idna

    try:
        labels = [idna.encode(label, uts46=True, transitional=False).decode("ascii")
                  if label else "" for label in re.split(r"[.\u3002\uff0e\uff61]", domain)]
    except idna.IDNAError as e:
        raise URLError(f"host {domain[:60]!r} is not a valid international domain") from e
    return ".".join(labels)


def _ipv4(labels: list[str]) -> str:
    if len(labels) > 4:
        raise URLError("an IPv4 address has at most four parts")
    numbers = []
    for label in labels:
        radix, digits = 10, label
        if label[:2].lower() == "0x":
            radix, digits = 16, label[2:]
        elif len(label) > 1 and label.startswith("0"):
            radix, digits = 8, label[1:]
        try:
            numbers.append(int(digits, radix) if digits else 0)
        except ValueError as e:
            raise URLError(f"bad IPv4 part {label[:20]!r}") from e
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise URLError("IPv4 part out of range")
    value = numbers[-1] + sum(n * 256 ** (3 - i) for i, n in enumerate(numbers[:-1]))
    return str(ipaddress.IPv4Address(value))


__all__ = ["SPECIAL_PORTS", "ParsedURL", "URLError", "parse_host", "parse_url"]
