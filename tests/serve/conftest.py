"""Fixtures: an OpenEnv-style server of the arith and SQL envs in a thread."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .servers import app_in_thread


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """Base URL of a server of ``arith/add-v0`` (root) and ``sql/spider-lite-v0``."""
    from agentgym.serve import create_app

    app = create_app(["arith/add-v0", "sql"], max_sessions=8, idle_timeout_s=600)
    with app_in_thread(app) as url:
        yield url
