"""Helpers for env authors: :func:`check_env`, :func:`check_rewards` and malformed actions.

Plugin authors get them as pytest fixtures too (the ``agentgym`` pytest plugin is installed with
agentgym): ``def test_my_env(agentgym_check_env): agentgym_check_env("mine/env-v0")`` and
``def test_my_rewards(agentgym_check_rewards): agentgym_check_rewards("mine/env-v0")``.
"""

from __future__ import annotations

from .checker import EnvCheckError, check_env, check_registered_env
from .malformed import malformed_actions
from .probes import PROBE_KINDS, Probe, ProbeContext, builtin_probes
from .rewards import (
    ProbeResult,
    RewardCheckError,
    RewardCheckResult,
    check_registered_rewards,
    check_rewards,
)
from .scorer_probes import check_scorer

__all__ = [
    "EnvCheckError",
    "PROBE_KINDS",
    "Probe",
    "ProbeContext",
    "ProbeResult",
    "RewardCheckError",
    "RewardCheckResult",
    "builtin_probes",
    "check_env",
    "check_registered_env",
    "check_registered_rewards",
    "check_rewards",
    "check_scorer",
    "malformed_actions",
]
