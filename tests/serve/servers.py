"""Env servers for the tests: uvicorn in a thread, or ``python -m agentgym.serve`` in a process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn


def free_port() -> int:
    """A TCP port free on loopback right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, timeout_s: float = 30.0) -> None:
    """Poll ``url`` until it answers 200 (or fail after ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not come up within {timeout_s}s")


class ThreadServer:
    """uvicorn serving an ASGI app in a thread on a fixed loopback port; start and stop at will."""

    def __init__(self, app: Any, port: int | None = None) -> None:
        self.app = app
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start serving; returns once the socket listens."""
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise TimeoutError("uvicorn did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop serving (open connections are dropped)."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._server.force_exit = True
            self._thread.join(10)


@contextmanager
def app_in_thread(app: Any) -> Iterator[str]:
    """Serve an ASGI app on a free loopback port in a thread; yields its base URL."""
    server = ThreadServer(app)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@contextmanager
def server_process(
    *args: str, port: int | None = None, module: str = "agentgym.serve"
) -> Iterator[tuple[str, subprocess.Popen]]:
    """``python -m MODULE ARGS --port P`` in a child process; yields (base URL, process)."""
    port = port or free_port()
    cmd = [sys.executable, "-m", module, *args, "--port", str(port)]
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url + "/health" if "--http" in args else url + "/mcp", 60)
        yield url, proc
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:
    """Terminate a server process we started (kill it if it lingers)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
