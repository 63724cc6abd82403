"""Fixtures for the GUI env tests: one desktop env per module (desktops take a second to start)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import agentgym


@pytest.fixture(scope="module")
def gui_env() -> Iterator[Any]:
    """``gui/desktop-v0`` on the train split, closed after the module."""
    env = agentgym.make("gui/desktop-v0", split="train")
    yield env
    env.close()
