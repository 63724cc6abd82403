"""The episode's network log: every request and response of a browser context, as HAR entries.

:class:`NetLog` listens to a Playwright ``BrowserContext`` (``requestfinished`` and
``requestfailed``) and keeps one HAR 1.2 entry per request: method, URL, request headers and
body, status, response headers, ``Location`` as ``redirectURL``, cookies set, and the response
body where WebArena-Verified's ``NetworkEventEvaluator`` reads one (JSON responses). A request
that failed (refused, aborted, blocked) has status -1, as in Playwright's HAR files. This is the
shape the ``webarena-verified`` package loads (``NetworkTrace.from_content``), so an entry list
goes to its evaluator as it is.

Bounded: request bodies to :data:`MAX_REQUEST_BODY` characters, response bodies to
:data:`MAX_RESPONSE_BODY` (JSON only), at most :data:`MAX_ENTRIES` entries and
:data:`MAX_BYTES` in all; what is left out is counted (``dropped``) so a truncated log says so.
The page is hostile: a body that cannot be read is left out, never raised.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Request, Response

logger = logging.getLogger(__name__)

MAX_ENTRIES = 1000
MAX_REQUEST_BODY = 16 * 1024
MAX_RESPONSE_BODY = 64 * 1024
MAX_BYTES = 2 * 1024 * 1024
"""The log's size bound (its JSON, roughly); entries past it are dropped and counted."""
STATIC = (".css", ".js", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".woff", ".woff2", ".ttf",
          ".ico", ".webp")


def _headers(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": str(v)[:4096]} for k, v in headers.items()]


def _cookies(set_cookie: str) -> list[dict[str, str]]:
    """The name and value of each cookie in a (newline-joined) ``set-cookie`` header."""
    out = []
    for line in set_cookie.splitlines():
        name, sep, rest = line.partition("=")
        if sep and name.strip():
            out.append({"name": name.strip(), "value": rest.split(";", 1)[0].strip()})
    return out


class NetLog:
    """The HAR entries of one browser context's traffic, bounded in size."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.dropped = 0
        self._bytes = 0
        self._pending: set[asyncio.Task[None]] = set()
        self._context: BrowserContext | None = None
        self._early: dict[int, dict[str, Any]] = {}

    def attach(self, context: BrowserContext) -> None:
        """Start recording ``context``'s requests (once; a second attach moves it)."""
        self.detach()
        self._context = context
        context.on("request", self._on_request)
        context.on("response", self._on_response)
        context.on("requestfinished", self._on_finished)
        context.on("requestfailed", self._on_failed)

    def detach(self) -> None:
        """Stop recording (the entries stay)."""
        if self._context is not None:
            for event, handler in (("request", self._on_request),
                                   ("response", self._on_response),
                                   ("requestfinished", self._on_finished),
                                   ("requestfailed", self._on_failed)):
                self._context.remove_listener(event, handler)
            self._context = None

    def clear(self) -> None:
        """Forget the entries (a new episode on a recycled context)."""
        self.entries, self.dropped, self._bytes = [], 0, 0
        self._early = {}

    # The page may navigate on before a finished request is read, and Playwright then forgets
    # the request's raw headers and its body: they are asked for as the request starts and the
    # response arrives, and a header read that still fails falls back to the headers Playwright
    # holds (a body that is gone is left out).

    def _on_request(self, request: Request) -> None:
        if len(self._early) >= 2 * MAX_ENTRIES:  # requests that never end: read them late
            return
        self._early[id(request)] = {"request": self._soon(request.all_headers())}

    def _on_response(self, response: Response) -> None:
        early = self._early.get(id(response.request))
        if early is None:
            return
        early["response"] = self._soon(response.all_headers())
        if self._wants_body(response.url, response.headers):  # asked for before the page goes
            early["body"] = self._soon(response.body())

    def _soon(self, coro: Any) -> asyncio.Future[Any]:
        future = asyncio.ensure_future(coro)
        future.add_done_callback(lambda f: f.cancelled() or f.exception())  # read, not logged
        return future

    def _on_finished(self, request: Request) -> None:
        self._spawn(self._record(request, failed=False))

    @staticmethod
    def _wants_body(url: str, headers: dict[str, str]) -> bool:
        return ("json" in headers.get("content-type", "")
                and not url.split("?", 1)[0].endswith(STATIC))

    def _on_failed(self, request: Request) -> None:
        self._spawn(self._record(request, failed=True))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _record(self, request: Request, failed: bool) -> None:
        early = self._early.pop(id(request), {})
        try:
            entry = await self._entry(request, failed, early)
        except Exception as e:  # noqa: BLE001 -- a request that vanished is left out
            logger.debug("network log: %s left out: %s", request.url[:100], e)
            self.dropped += 1
            return
        self.add(entry)

    def add(self, entry: dict[str, Any]) -> None:
        """Keep ``entry`` if the bounds allow it (else count it as dropped)."""
        size = len(json.dumps(entry))
        if len(self.entries) >= MAX_ENTRIES or self._bytes + size > MAX_BYTES:
            self.dropped += 1
            return
        self._bytes += size
        self.entries.append(entry)

    @staticmethod
    async def _headers_of(early: asyncio.Future[Any] | None, fallback: dict[str, str]
                          ) -> dict[str, str]:
        try:
            if early is not None:
                return dict(await early)
        except Exception:  # noqa: BLE001 -- Playwright forgot them: what it still holds
            pass
        return dict(fallback)

    async def _entry(self, request: Request, failed: bool,
                     early: dict[str, Any]) -> dict[str, Any]:
        headers = await self._headers_of(early.get("request"), request.headers)
        req: dict[str, Any] = {"method": request.method, "url": request.url,
                               "headers": _headers(headers)}
        body = request.post_data
        if body:
            req["postData"] = {"mimeType": headers.get("content-type", ""),
                               "text": body[:MAX_REQUEST_BODY]}
        resp: dict[str, Any] = {"status": -1, "headers": [], "cookies": [], "redirectURL": "",
                                "content": {"mimeType": "", "size": 0}}
        response = None if failed else await request.response()
        if response is not None:
            rheaders = await self._headers_of(early.get("response"), response.headers)
            mime = rheaders.get("content-type", "")
            resp.update(status=response.status, headers=_headers(rheaders),
                        cookies=_cookies(rheaders.get("set-cookie", "")),
                        redirectURL=rheaders.get("location", "") if 300 <= response.status < 400
                        else "")
            resp["content"]["mimeType"] = mime
            if self._wants_body(request.url, rheaders) and response.status < 300:
                try:
                    raw = await (early.get("body") or response.body())
                except Exception:  # noqa: BLE001 -- the body is gone with its page
                    raw = b""
                text = raw[:MAX_RESPONSE_BODY].decode("utf-8", "replace")
                resp["content"].update(text=text, size=len(text))
        else:
            resp["_failure"] = (request.failure or "failed")[:200]
        return {"startedDateTime": "", "time": 0, "request": req, "response": resp}

    async def flush(self, timeout_s: float = 5.0) -> None:
        """Wait (bounded) for the entries still being read."""
        if self._pending:
            await asyncio.wait(list(self._pending), timeout=timeout_s)

    async def snapshot(self) -> list[dict[str, Any]]:
        """The entries so far (in-flight ones finished first)."""
        await self.flush()
        return list(self.entries)

    def har(self) -> dict[str, Any]:
        """The log as a HAR 1.2 document."""
        return {"log": {"version": "1.2", "creator": {"name": "agentgym", "version": "1"},
                        "entries": list(self.entries), "_dropped": self.dropped}}
