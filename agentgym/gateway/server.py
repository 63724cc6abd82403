"""Run a gateway: in the foreground (the CLI) or on a background thread (trainer, tests).

:class:`GatewayServer` starts uvicorn on its own thread and event loop, binds (port 0 picks a
free port), and exposes :attr:`~GatewayServer.url` and :meth:`~GatewayServer.base_url` for an
episode; the policy's decode batches run on that loop, so concurrent agents share batches.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
from typing import Any

from ..serve.guard import GuardSettings
from .app import create_app
from .service import Gateway


class GatewayServer:
    """A gateway served over loopback HTTP from a background thread (a context manager)."""

    def __init__(self, gateway: Gateway, *, host: str = "127.0.0.1", port: int = 0,
                 guard: GuardSettings | None = None, token: str | None = None,
                 start_timeout_s: float = 60.0) -> None:
        """``guard`` defaults to loopback names with ``token`` (None: no token) as bearer."""
        self.gateway = gateway
        self.guard = guard or GuardSettings(token=token)
        self.host = host
        self.start_timeout_s = start_timeout_s
        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.port: int = self._sock.getsockname()[1]
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    @property
    def url(self) -> str:
        """``http://host:port`` of the gateway."""
        return f"http://{self.host}:{self.port}"

    def base_url(self, episode_id: str) -> str:
        """The ``OPENAI_BASE_URL`` of an agent playing ``episode_id``."""
        return f"{self.url}/episodes/{episode_id}/v1"

    def start(self) -> GatewayServer:
        """Serve on a background thread; returns once the server accepts connections."""
        import uvicorn

        config = uvicorn.Config(create_app(self.gateway, self.guard), log_level="warning",
                                access_log=False, timeout_graceful_shutdown=2,
                                timeout_keep_alive=75)
        self._server = uvicorn.Server(config)
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self.loop = loop
            asyncio.set_event_loop(loop)
            self._server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
            task = loop.create_task(self._server.serve(sockets=[self._sock]))
            loop.call_soon(ready.set)
            try:
                loop.run_until_complete(task)
                loop.run_until_complete(self.gateway.policy.aclose())
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name="agentgym-gateway", daemon=True)
        self._thread.start()
        ready.wait(self.start_timeout_s)
        deadline = threading.Event()
        for _ in range(int(self.start_timeout_s * 20)):
            if self._server.started:
                return self
            deadline.wait(0.05)
        raise RuntimeError("the gateway did not start")

    def call(self, coro: Any, timeout_s: float = 60.0) -> Any:
        """Run a coroutine on the server's loop from another thread and return its result."""
        if self.loop is None:
            raise RuntimeError("the gateway is not running")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout_s)

    def stop(self) -> None:
        """Stop serving and join the thread."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(30)
        self._sock.close()

    def __enter__(self) -> GatewayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def mcp_command(env_id: str, *, port: int, split: str | None = None) -> list[str]:
    """The argv serving ``env_id``'s tools to agents over MCP (streamable HTTP, loopback
    ``port``, ``/mcp``): ``agentgym serve ENV --mcp --transport http``."""
    argv = [sys.executable, "-m", "agentgym.cli", "serve", env_id, "--mcp", "--transport",
            "http", "--host", "127.0.0.1", "--port", str(port)]
    return [*argv, "--split", split] if split else argv


__all__ = ["GatewayServer", "mcp_command"]
