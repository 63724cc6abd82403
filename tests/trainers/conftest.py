"""Fixtures for trainer tests: the tiny two-turn env and a tiny-model config."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture
def tiny_cfg(tmp_path):
    """A function building a tiny-model :class:`TrainConfig` (env registered) with overrides."""
    import tinyenv
    from run_tiny import TINY

    from agentgym.trainers import load_config

    tinyenv.register()

    def make(*overrides: str):
        return load_config(None, [*TINY, f"output_dir={tmp_path / 'run'}", *overrides])

    yield make
    import agentgym
    from agentgym.plugins import reset_plugins

    reset_plugins()  # drops the test env so other tests see only the real registry
    agentgym.list_envs()
