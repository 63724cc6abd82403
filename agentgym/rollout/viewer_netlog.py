"""The trajectory viewer's network-log panel: an episode's requests, from its final ``info``.

An env that records its browser traffic leaves it in ``info["network_log"]`` as HAR entries
(``{"request": {"method", "url", "postData"}, "response": {"status", "redirectURL"}}``). The
panel lists them in order: method, status, URL, where a redirect went and the request body
(folded). Everything shown is escaped: the log comes from hostile pages. At most
:data:`MAX_ROWS` rows; the rest are counted.
"""

from __future__ import annotations

import html
from typing import Any

MAX_ROWS = 500
BODY_CHARS = 400


def _row(entry: Any) -> str:
    request = entry.get("request") if isinstance(entry, dict) else None
    response = entry.get("response") if isinstance(entry, dict) else None
    request = request if isinstance(request, dict) else {}
    response = response if isinstance(response, dict) else {}
    post = request.get("postData")
    body = str(post.get("text", "")) if isinstance(post, dict) else ""
    body_cell = (f"<details><summary>{len(body)} chars</summary><pre>"
                 f"{html.escape(body[:BODY_CHARS])}</pre></details>") if body else ""
    redirect = str(response.get("redirectURL") or "")
    return (f"<tr><td>{html.escape(str(request.get('method', '')))}</td>"
            f"<td>{html.escape(str(response.get('status', '')))}</td>"
            f"<td>{html.escape(str(request.get('url', ''))[:300])}</td>"
            f"<td>{html.escape(redirect[:300])}</td><td>{body_cell}</td></tr>")


def network_panel(info: dict[str, Any]) -> str:
    """The panel's HTML, or "" when the episode has no network log."""
    log = info.get("network_log") if isinstance(info, dict) else None
    if not isinstance(log, list) or not log:
        return ""
    rows = "".join(_row(e) for e in log[:MAX_ROWS])
    dropped = int(info.get("network_log_dropped") or 0) + max(0, len(log) - MAX_ROWS)
    more = f"<p>{dropped} more requests not shown</p>" if dropped else ""
    return (f'<details class="netlog" open><summary><b>network log</b>: {len(log)} requests'
            f"</summary><table><tr><th>method</th><th>status</th><th>URL</th>"
            f"<th>redirect</th><th>request body</th></tr>{rows}</table>{more}</details>")


__all__ = ["network_panel"]
