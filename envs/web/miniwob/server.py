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


class _Server(http.server.ThreadingHTTPServer):
    """The threading server, quiet when a browser drops a connection mid-file (a tab closed by
    a recycle): logged at debug level instead of a traceback on standard error."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Log a dropped connection at debug level; anything else as an error."""
        import sys

        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):
            logger.debug("miniwob server: %s dropped the connection: %s", client_address, error)
            return
        logger.error("miniwob server: request from %s failed", client_address, exc_info=True)


def base_url() -> str:
    """``http://127.0.0.1:PORT/`` of the running server (started on the first call)."""
    global _server
    with _lock:
        if _server is None:
            handler = functools.partial(_Handler, directory=str(html_dir()))
            server = _Server(("127.0.0.1", 0), handler)
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
