"""``make("openenv:<docker image>")``: an OpenEnv server started from its image, one container
per env, thrown away when the env closes.

OpenEnv envs ship as Docker images whose server listens on port 8000 (``agentgym export
openenv`` writes such an image, serving on ``$PORT``). :class:`OpenEnvContainer` starts the
image with a fresh bearer token (``AGENTGYM_SERVE_TOKEN``: an agentgym export refuses to serve
off loopback without one; other servers ignore it), published on a free loopback port where the
engine has its ``bridge`` network, else on the host's network with ``PORT`` set (an engine run
with ``--bridge=none``, as ``scripts/start_dockerd.sh`` does: the image must honour ``$PORT``).
It waits for ``/health`` (a container that exits or never answers is an
:class:`~agentgym.InfrastructureError` carrying the tail of its log) and removes the container
on close. :class:`OpenEnvImageEnv` is :class:`~.openenv_env.OpenEnvEnv` on such a container.
The image is never pulled: it must be on the engine (``docker build`` or ``docker load``).
"""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from typing import Any

import httpx

from agentgym import InfrastructureError
from agentgym.errors import ConfigError

from .openenv_env import OpenEnvEnv

CONTAINER_PORT = 8000
"""Where OpenEnv's images serve inside the container."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _docker(*args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    if shutil.which("docker") is None:
        raise ConfigError("openenv:<image> needs the docker command and a running engine "
                          "(scripts/start_dockerd.sh)")
    try:
        return subprocess.run(["docker", *args], capture_output=True, text=True,  # noqa: S603
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise InfrastructureError(f"docker {args[0]} did not answer in {timeout:g}s") from e


class OpenEnvContainer:
    """One running container of an OpenEnv image: ``url`` and ``token`` reach its server."""

    def __init__(self, image: str, start_timeout_s: float = 180.0) -> None:
        if _docker("version", "-f", "{{.Server.Version}}").returncode != 0:
            raise ConfigError(f"openenv:{image}: no Docker engine answers "
                              "(scripts/start_dockerd.sh starts one)")
        if _docker("image", "inspect", image).returncode != 0:
            raise ConfigError(f"openenv:{image}: no such image on the Docker engine (it is "
                              "never pulled: build or load it first)")
        self.image = image
        self.token = secrets.token_urlsafe(24)
        self.name = f"agentgym-openenv-{uuid.uuid4().hex[:12]}"
        port = _free_port()
        bridge = _docker("network", "inspect", "bridge").returncode == 0
        where = (["-p", f"127.0.0.1:{port}:{CONTAINER_PORT}"] if bridge
                 else ["--network", "host", "-e", f"PORT={port}"])
        # the token goes in through a private file, never on a command line other users can read
        with tempfile.NamedTemporaryFile("w", prefix="agentgym-openenv-", suffix=".env") as env:
            env.write(f"AGENTGYM_SERVE_TOKEN={self.token}\n")
            env.flush()
            started = _docker("run", "-d", "--name", self.name, *where, "--env-file", env.name,
                              image)
        if started.returncode != 0:
            raise InfrastructureError(f"openenv:{image}: docker run failed: "
                                      f"{started.stderr.strip()[-400:]}")
        self.url = f"http://127.0.0.1:{port}"
        try:
            self._wait(start_timeout_s)
        except BaseException:
            self.stop()
            raise

    def _wait(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/health", headers=self.headers,
                             timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            state = _docker("inspect", "-f", "{{.State.Running}}", self.name)
            if state.stdout.strip() != "true":
                raise InfrastructureError(f"openenv:{self.image}: the container stopped: "
                                          f"{self.log_tail()}")
            time.sleep(0.25)
        raise InfrastructureError(f"openenv:{self.image}: no answer on /health in "
                                  f"{timeout_s:g}s: {self.log_tail()}")

    @property
    def headers(self) -> dict[str, str]:
        """The bearer token's header."""
        return {"Authorization": f"Bearer {self.token}"}

    def log_tail(self, chars: int = 600) -> str:
        """The end of the container's output."""
        out = _docker("logs", "--tail", "20", self.name)
        return " ".join((out.stdout + out.stderr)[-chars:].split())

    def stop(self) -> None:
        """Remove the container (idempotent)."""
        _docker("rm", "-f", self.name)


class OpenEnvImageEnv(OpenEnvEnv):
    """:class:`~.openenv_env.OpenEnvEnv` on a container of ``image`` that it owns."""

    def __init__(self, image: str, start_timeout_s: float = 180.0, **kwargs: Any) -> None:
        self.container = OpenEnvContainer(image, start_timeout_s=start_timeout_s)
        try:
            super().__init__(self.container.url, token=self.container.token, **kwargs)
        except BaseException:
            self.container.stop()
            raise

    def _close(self) -> None:  # close() and aclose() (after the asyncio connection) both end here
        super()._close()
        self.container.stop()


def make_env(image: str, *, max_turns: int | None = None, **kwargs: Any) -> Any:
    """``make("openenv:<image>")``: :class:`OpenEnvImageEnv` in :class:`agentgym.TurnLimit`."""
    from agentgym import TurnLimit
    from agentgym.settings import resolve_max_turns

    return TurnLimit(OpenEnvImageEnv(image, **kwargs),
                     max_turns=resolve_max_turns(max_turns, None))


__all__ = ["CONTAINER_PORT", "OpenEnvContainer", "OpenEnvImageEnv", "make_env"]
