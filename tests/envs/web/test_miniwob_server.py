"""The MiniWoB++ file server: a connection the browser drops is not a traceback on stderr."""

from __future__ import annotations

import logging
import urllib.request

import pytest

pytest.importorskip("miniwob")

from agentgym.envs.web.miniwob import server  # noqa: E402


def test_dropped_connection_is_quiet_and_other_errors_are_logged(capfd, caplog) -> None:
    url = server.base_url()
    try:
        running = server._server
        assert running is not None
        caplog.set_level(logging.DEBUG, logger=server.logger.name)
        try:
            raise BrokenPipeError(32, "Broken pipe")  # what a closed tab leaves the writer
        except BrokenPipeError:
            running.handle_error(None, ("127.0.0.1", 1))
        assert capfd.readouterr().err == ""
        assert any("dropped the connection" in r.getMessage() for r in caplog.records)
        try:
            raise ValueError("a real bug")
        except ValueError:
            running.handle_error(None, ("127.0.0.1", 1))
        assert any(r.levelno == logging.ERROR and r.exc_info for r in caplog.records)
        with urllib.request.urlopen(url + "miniwob/click-test.html", timeout=30) as reply:
            assert reply.status == 200  # still serving
    finally:
        server.shutdown()
