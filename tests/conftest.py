"""Shared fixtures for agentgym's own test suite."""

from __future__ import annotations

import pytest

from agentgym.plugins import reset_plugins

pytest_plugins = ["agentgym.sandboxes.testing"]


@pytest.fixture
def fresh_plugins(monkeypatch: pytest.MonkeyPatch):
    """Rebuild the plugin manager before and after the test (env vars may change loading)."""
    reset_plugins()
    yield
    reset_plugins()
