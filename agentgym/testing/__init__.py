"""Helpers for env authors: :func:`check_env` and a generator of malformed actions.

Plugin authors get them as pytest fixtures too (the ``agentgym`` pytest plugin is installed with
agentgym): ``def test_my_env(agentgym_check_env): agentgym_check_env("mine/env-v0")``.
"""

from __future__ import annotations

from .checker import EnvCheckError, check_env, check_registered_env
from .malformed import malformed_actions

__all__ = ["EnvCheckError", "check_env", "check_registered_env", "malformed_actions"]
