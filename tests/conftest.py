"""Shared fixtures for agentgym's own test suite.

The suite turns :class:`agentgym.PluginWarning` into an error (pyproject's ``filterwarnings``),
so it loads only the plugins this repository installs: agentgym's built-in entry points and the
plugins under ``plugins/``. Any other distribution's ``agentgym`` entry point is left out through
``AGENTGYM_LOAD_PLUGINS`` (set here, before the plugin manager is first built, and inherited by
the subprocesses tests start), so a broken third-party plugin installed beside agentgym cannot
turn the suite into errors. A run that sets ``AGENTGYM_LOAD_PLUGINS`` itself keeps its value.
"""

from __future__ import annotations

import os
import re
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def own_distributions() -> set[str]:
    """agentgym and the plugin distributions under plugins/ (canonical names)."""
    names = {"agentgym"}
    for pyproject in ROOT.glob("plugins/*/pyproject.toml"):
        names.add(_canonical(tomllib.loads(pyproject.read_text())["project"]["name"]))
    return names


def own_plugins() -> list[str]:
    """The ``agentgym`` entry points of this repository's own distributions."""
    own = own_distributions()
    return sorted({ep.name for ep in entry_points(group="agentgym")
                   if ep.dist is not None and _canonical(ep.dist.name) in own})


os.environ.setdefault("AGENTGYM_LOAD_PLUGINS", ",".join(own_plugins()))

from agentgym.plugins import reset_plugins  # noqa: E402  (after the plugin list is set)

reset_plugins()  # nothing imported above may have built the manager with every plugin

pytest_plugins = ["agentgym.sandboxes.testing"]


@pytest.fixture
def fresh_plugins(monkeypatch: pytest.MonkeyPatch):
    """Rebuild the plugin manager before and after the test (env vars may change loading)."""
    reset_plugins()
    yield
    reset_plugins()
