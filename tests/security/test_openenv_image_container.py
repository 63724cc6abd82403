"""``make("openenv:<image>")`` launches a container: its bearer token must never sit on a
command line (``ps`` shows every local user the argv of ``docker run``), the file that carries it
is private while it exists, and the container is removed when the env is done with it, also when
it never came up. The Docker CLI is replaced by a recorder: these are the importer's own duties,
not the engine's (the real engine runs in the slow export test)."""

from __future__ import annotations

import os
import stat
import subprocess
from typing import Any

import pytest

from agentgym import InfrastructureError
from agentgym.envs.imported import openenv_docker


class FakeDocker:
    """Records every ``docker`` call; ``running`` says what ``docker inspect`` answers."""

    def __init__(self, running: bool) -> None:
        self.calls: list[list[str]] = []
        self.env_file_modes: list[int] = []
        self.env_file_texts: list[str] = []
        self.running = running

    def __call__(self, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(args))
        if args[0] == "run" and "--env-file" in args:
            path = args[args.index("--env-file") + 1]
            self.env_file_modes.append(stat.S_IMODE(os.stat(path).st_mode))
            self.env_file_texts.append(open(path).read())
        out, rc = "", 0
        if args[:2] == ("network", "inspect"):
            rc = 1  # no bridge network, as under scripts/start_dockerd.sh
        elif args[0] == "inspect":
            out = "true" if self.running else "false"
        return subprocess.CompletedProcess(list(args), rc, out, "")


def _health(ok: bool) -> Any:
    class Reply:
        status_code = 200 if ok else 503

    return lambda *a, **kw: Reply()


def test_the_token_goes_through_a_private_file_never_argv(monkeypatch) -> None:
    docker = FakeDocker(running=True)
    monkeypatch.setattr(openenv_docker, "_docker", docker)
    monkeypatch.setattr(openenv_docker.httpx, "get", _health(True))
    container = openenv_docker.OpenEnvContainer("some/image:1")
    assert all(container.token not in arg for call in docker.calls for arg in call)
    assert docker.env_file_modes == [0o600]
    assert docker.env_file_texts == [f"AGENTGYM_SERVE_TOKEN={container.token}\n"]
    container.stop()
    assert ["rm", "-f", container.name] in docker.calls


def test_a_container_that_stops_before_answering_is_removed_and_aborts(monkeypatch) -> None:
    docker = FakeDocker(running=False)
    monkeypatch.setattr(openenv_docker, "_docker", docker)
    monkeypatch.setattr(openenv_docker.httpx, "get", _health(False))
    with pytest.raises(InfrastructureError, match="the container stopped"):
        openenv_docker.OpenEnvContainer("some/image:1")
    names = [c[c.index("--name") + 1] for c in docker.calls if c[0] == "run"]
    assert names and ["rm", "-f", names[0]] in docker.calls
