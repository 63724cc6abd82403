"""Fixtures of the WebArena-Lite tests: a private site server per test session.

The sites run from a temporary runtime folder (``AGENTGYM_WEBARENA_RUNTIME``), so the tests
never share a server with a user's envs, and the server is stopped at the end of the session.
Browser tests skip when Chromium or Playwright is missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentgym.envs.webarena.sites.server import SiteServer, ensure_sites, stop_sites
from agentgym.sandboxes.browser import chromium_available


@pytest.fixture(scope="session")
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    """The bundled sites, started for this test session and stopped after it."""
    folder: Path = tmp_path_factory.mktemp("webarena-runtime")
    old = os.environ.get("AGENTGYM_WEBARENA_RUNTIME")
    os.environ["AGENTGYM_WEBARENA_RUNTIME"] = str(folder)
    try:
        yield ensure_sites(folder)
    finally:
        stop_sites(folder)
        if old is None:
            os.environ.pop("AGENTGYM_WEBARENA_RUNTIME", None)
        else:
            os.environ["AGENTGYM_WEBARENA_RUNTIME"] = old


@pytest.fixture
def needs_chromium() -> None:
    """Skip unless Chromium and Playwright are installed."""
    if not chromium_available():
        pytest.skip("Chromium or Playwright is not installed")
