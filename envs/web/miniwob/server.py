"""Serves the ``miniwob`` package's ``html/`` folder on loopback, once per process.

A threading HTTP server from the standard library on ``127.0.0.1`` with a free port, started on
first use in a daemon thread. Files are read from the installed package data; nothing is
downloaded.
"""

from __future__ import annotations

import functools
import http.server
import logging
import threading
from pathlib import Path
from typing import Any

from agentgym.errors import missing_extra

logger = logging.getLogger(__name__)
_lock = threading.Lock()
_server: http.server.ThreadingHTTPServer | None = None


def html_dir() -> Path:
    """The ``html/`` folder shipped in the ``miniwob`` package."""
    try:
        import miniwob
    except ImportError as e:
        raise missing_extra("miniwob", "web") from e
    return Path(miniwob.__file__).parent / "html"


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        logger.debug("miniwob server: " + format, *args)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()


def base_url() -> str:
    """``http://127.0.0.1:PORT/`` of the running server (started on the first call)."""
    global _server
    with _lock:
        if _server is None:
            handler = functools.partial(_Handler, directory=str(html_dir()))
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            server.daemon_threads = True
            thread = threading.Thread(target=server.serve_forever, name="miniwob-http",
                                      daemon=True)
            thread.start()
            _server = server
        host, port = _server.server_address[:2]
        return f"http://127.0.0.1:{port}/"


def shutdown() -> None:
    """Stop the server (a later :func:`base_url` starts a new one)."""
    global _server
    with _lock:
        if _server is not None:
            _server.shutdown()
            _server.server_close()
            _server = None


__all__ = ["base_url", "html_dir", "shutdown"]
