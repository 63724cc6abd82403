"""Which origins an episode's browser may reach, in the forms each enforcement point needs.

One :class:`NetworkPolicy` per episode is enforced in three places, all from the same set of
origins: the action-level check (:meth:`NetworkPolicy.allows` on the URL as the browser reads
it, :mod:`._browser_url`), the request interception inside the browser
(:meth:`NetworkPolicy.block_pattern`) and the context's proxy, which lets only the allowed hosts
and ports bypass it (:meth:`NetworkPolicy.bypass_rules`) and refuses everything else
(:mod:`._browser_egress`). Every refusal is counted in :attr:`NetworkPolicy.blocked`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ._browser_url import SPECIAL_PORTS, URLError, parse_url

ALWAYS_ALLOWED_SCHEMES = ("data", "blob", "about")


def origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url`` as the browser reads it (default port explicit, host
    lowered and in ASCII); a URL that cannot be read gives ``scheme://invalid:0``."""
    try:
        return parse_url(url).origin
    except URLError:
        scheme = url.split(":", 1)[0].strip().lower() if ":" in url else ""
        return f"{scheme}://invalid:0"


@dataclass
class NetworkPolicy:
    """Which origins an episode may reach. Everything else is aborted and counted.

    ``allowed_origins`` are URLs or ``scheme://host:port`` strings (``http://127.0.0.1:8000``);
    ``localhost`` and ``127.0.0.1`` are treated as the same host, since both are loopback.
    An empty set blocks every network request (``data:`` and ``about:`` URLs still load).
    """

    allowed_origins: Iterable[str] = ()
    blocked: int = 0
    """Requests and connections refused so far (any protocol)."""
    blocked_urls: list[str] = field(default_factory=list)
    """The first :attr:`keep_urls` refused URLs (``tcp://host:port`` for a tunnel: WebSocket,
    TURN over TCP, TLS), for the observation and tests."""
    keep_urls: int = 20

    def __post_init__(self) -> None:
        self._origins = {self._canonical(origin_of(o)) for o in self.allowed_origins}
        self._origins.discard("://invalid:0")

    @staticmethod
    def _canonical(origin: str) -> str:
        return origin.replace("://localhost:", "://127.0.0.1:")

    def _split(self) -> list[tuple[str, list[str], str]]:
        """(scheme, host names, port) of every allowed origin (both names of loopback)."""
        out = []
        for origin in sorted(self._origins):
            scheme, rest = origin.split("://", 1)
            host, port = rest.rsplit(":", 1)
            out.append((scheme, ["127.0.0.1", "localhost"] if host == "127.0.0.1" else [host],
                        port))
        return out

    def block_pattern(self) -> re.Pattern[str]:
        """A regex matching every URL this policy blocks.

        Playwright matches it inside its driver, so allowed requests never make a round trip
        through Python; only blocked ones reach the route handler, which aborts and counts them.
        """
        allowed = [r"(?:data|blob|about):"]
        for scheme, hosts, port in self._split():
            default = str(SPECIAL_PORTS.get(scheme, ""))
            ports = [f":{port}", ""] if port == default else [f":{port}"]
            for h in hosts:
                for p in ports:
                    allowed.append(re.escape(f"{scheme}://{h}{p}") + r"(?:[/?#]|$)")
        return re.compile(r"^(?!" + "|".join(allowed) + ")", re.IGNORECASE)

    def bypass_rules(self) -> str:
        """Chromium proxy bypass rules (``host:port,...``) for the allowed hosts and ports:
        these connect directly, everything else goes to the context's refusing proxy. Empty
        when nothing is allowed."""
        rules = {f"{h}:{port}" for _, hosts, port in self._split() for h in hosts}
        return ",".join(sorted(rules))

    def origins(self) -> set[str]:
        """The allowed origins as ``scheme://host[:port]`` (both names of loopback), the form
        CDP's storage calls take."""
        out: set[str] = set()
        for scheme, hosts, port in self._split():
            default = str(SPECIAL_PORTS.get(scheme, ""))
            suffix = "" if port == default else f":{port}"
            out.update(f"{scheme}://{h}{suffix}" for h in hosts)
        return out

    def allows(self, url: str) -> bool:
        """Whether a request to ``url`` (read as the browser reads it) may go out."""
        scheme = url.strip().split(":", 1)[0].lower() if ":" in url else ""
        if scheme in ALWAYS_ALLOWED_SCHEMES:
            return True
        try:
            parsed = parse_url(url)
        except URLError:
            return False
        return self._canonical(parsed.origin) in self._origins

    def record_block(self, url: str) -> None:
        """Count a refused request or connection."""
        self.blocked += 1
        if len(self.blocked_urls) < self.keep_urls:
            self.blocked_urls.append(url[:200])


__all__ = ["ALWAYS_ALLOWED_SCHEMES", "NetworkPolicy", "origin_of"]
