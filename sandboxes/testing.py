"""Pytest fixtures for tests that need a real sandbox backend, shared by every test folder.

Import them where the tests live (a ``conftest.py``), or load this module as a pytest plugin::

    from agentgym.sandboxes.testing import docker_engine  # noqa: F401  (a fixture)

``docker_engine`` starts a Docker engine with ``scripts/start_dockerd.sh`` and builds the sandbox
image with ``scripts/build_sandbox_image.sh`` (both idempotent), once per session. It skips,
saying why, only when Docker is not installed or the scripts are absent (an installed wheel
rather than a source checkout); a failing script fails the test with the script's output.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
"""``scripts/`` of the source checkout this package is imported from."""
SETUP = (("start_dockerd.sh", 120), ("build_sandbox_image.sh", 900))


def ensure_docker() -> None:
    """Start the engine and build the image, or skip/fail the calling test with the reason."""
    if shutil.which("dockerd") is None and shutil.which("docker") is None:
        pytest.skip("no dockerd binary: install docker.io to run the Docker sandbox tests")
    for script, limit in SETUP:
        path = SCRIPTS / script
        if not path.exists():
            pytest.skip(f"{path} not found: Docker tests need a source checkout")
        done = subprocess.run([str(path)], capture_output=True, text=True, timeout=limit)
        if done.returncode != 0:
            pytest.fail(f"scripts/{script} failed:\n{done.stdout}\n{done.stderr}")


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """A running Docker engine with the ``agentgym-sandbox:py3`` image (see the module doc)."""
    ensure_docker()
