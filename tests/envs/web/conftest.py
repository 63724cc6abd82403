"""Fixtures for the web suites: browser tests skip only where Chromium or Playwright is missing."""

from __future__ import annotations

import pytest

from agentgym.sandboxes.browser import chromium_available


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``browser``-marked tests on a machine without Chromium (CI installs it)."""
    if chromium_available():
        return
    skip = pytest.mark.skip(reason="Chromium or Playwright not installed (scripts/setup.sh)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)
