"""pytest plugin installed with agentgym: fixtures for env authors.

``agentgym_check_env`` is a function fixture: ``agentgym_check_env("my/env-v0")`` makes the env and
runs :func:`agentgym.testing.check_env` on it. ``agentgym_check_rewards("my/env-v0")`` runs
:func:`agentgym.testing.check_rewards` and fails the test with the probe table when a degenerate
or adversarial policy earns more than doing nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def agentgym_check_env() -> Callable[..., None]:
    """Return :func:`agentgym.testing.check_registered_env`."""
    from . import check_registered_env

    return check_registered_env


@pytest.fixture
def agentgym_check_rewards() -> Callable[..., Any]:
    """Return :func:`agentgym.testing.check_registered_rewards` (it raises on a failed probe)."""
    from . import check_registered_rewards

    return check_registered_rewards


def pytest_configure(config: Any) -> None:
    """Declare the markers agentgym's own suites and plugin suites use."""
    for marker in (
        "slow: takes more than a few seconds",
        "docker: needs a Docker engine",
        "postgres: needs PostgreSQL server binaries",
        "browser: needs Chromium",
        "xvfb: needs Xvfb and xdotool (GUI desktops)",
        "gpu: needs a CUDA GPU",
        "model: loads the SmolLM2 model",
    ):
        config.addinivalue_line("markers", marker)
