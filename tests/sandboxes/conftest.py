"""Fixtures for the sandbox suites: one sandbox per backend, Docker engine and image set up once.

``sandbox`` is parametrized over the backends: bubblewrap always, Docker under the ``docker``
marker. ``docker_engine`` (from :mod:`agentgym.sandboxes.testing`) starts an engine with
``scripts/start_dockerd.sh`` and builds the image with ``scripts/build_sandbox_image.sh``; it
skips only when Docker is not installed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from agentgym.sandbox import Sandbox, SandboxLimits
from agentgym.sandboxes.testing import docker_engine  # noqa: F401  (a fixture)

CANARY_ENV = "AGENTGYM_SANDBOX_CANARY_SECRET"
CANARY_SECRET = "canary-7f3a9c-do-not-leak"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "docker: needs a Docker engine (started by the fixture)")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")


@pytest.fixture(scope="session", autouse=True)
def canary_env() -> Iterator[str]:
    """A secret in the parent's environment that no sandbox may see."""
    os.environ[CANARY_ENV] = CANARY_SECRET
    yield CANARY_SECRET
    os.environ.pop(CANARY_ENV, None)


@pytest.fixture(scope="session")
def bubblewrap_sandbox() -> Iterator[Sandbox]:
    """One bubblewrap sandbox for the session."""
    from agentgym.sandboxes.bubblewrap import BubblewrapSandbox

    with BubblewrapSandbox() as sandbox:
        yield sandbox


@pytest.fixture(scope="session")
def docker_sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """One warm-pool Docker sandbox whose pool holds exactly one container.

    With one container every run reuses it, so the suites check that a run after a hostile one
    starts clean in the *same* container (unless that one had to be replaced).
    """
    from agentgym.sandboxes import shutdown_pools
    from agentgym.sandboxes.docker import DockerSandbox

    request.getfixturevalue("docker_engine")

    with DockerSandbox(pool_size=1, max_pool_size=1) as sandbox:
        yield sandbox
    shutdown_pools()


BACKENDS = ["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(params=BACKENDS)
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """The session sandbox of each backend, with any session files cleared."""
    box: Sandbox = request.getfixturevalue(f"{request.param}_sandbox")
    box.clear_files()
    box.limits = SandboxLimits(timeout_s=5.0)
    return box
