"""The ``gateway:`` section of a train config: the agent command, the reward, the jail.

Read and checked once by :meth:`AgentSettings.from_config`; :mod:`.gateway_rollouts` runs the
agents it names.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from typing import Any

from agentgym.gateway import bubblewrap_works

from .config import ConfigError


@dataclass(frozen=True)
class AgentSettings:
    """The ``gateway:`` section of a train config."""

    agent: tuple[str, ...]
    """The agent command (a list, or one shell-like string); a first word ``python`` is the
    trainer's own interpreter."""
    reward: str = "env"
    """``env``, ``posted`` or ``module:function``."""
    timeout_s: float = 300.0
    """An agent still running after this is killed and its episode aborted."""
    mcp: bool = True
    """Serve the env's tools over MCP (``AGENTGYM_MCP_URL``)."""
    concurrency: int = 8
    """Agents running at once."""
    describe_tools: bool = True
    """Let the gateway describe the tools in the system prompt (see :class:`Gateway`)."""
    scorer: tuple[str, ...] = ()
    """With ``reward: posted``: the program that posts each episode's reward with its reward
    key, started after the agent's jail is gone (trusted: the trainer's environment)."""
    sandbox: str = "auto"
    """``bubblewrap`` (required), ``none``, or ``auto`` (bubblewrap where it works)."""
    memory_mb: int = 8192
    """Address-space limit of each agent process (0: none)."""
    pass_env: tuple[str, ...] = ()
    """Variables of the trainer's environment an agent also gets (by name)."""
    binds: tuple[str, ...] = ()
    """Extra host paths a jailed agent may read."""

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> AgentSettings:
        """Read and check the section."""
        agent, scorer = (_argv(section.get(k)) for k in ("agent", "scorer"))
        if not agent:
            raise ConfigError("gateway.agent must name the agent command (a list or a string)")
        extra = set(section) - {"agent", "reward", "timeout_s", "mcp", "concurrency",
                                "describe_tools", "scorer", "sandbox", "memory_mb", "pass_env",
                                "binds"}
        if extra:
            raise ConfigError(f"unknown gateway settings: {sorted(extra)}")
        out = cls(tuple(agent), str(section.get("reward", "env")),
                  float(section.get("timeout_s", 300.0)), bool(section.get("mcp", True)),
                  int(section.get("concurrency", 8)), bool(section.get("describe_tools", True)),
                  tuple(scorer), str(section.get("sandbox", "auto")),
                  int(section.get("memory_mb", 8192)),
                  tuple(str(v) for v in section.get("pass_env", ()) or ()),
                  tuple(str(v) for v in section.get("binds", ()) or ()))
        if out.reward not in ("env", "posted") and ":" not in out.reward:
            raise ConfigError("gateway.reward must be env, posted or module:function")
        if out.reward == "posted" and not out.scorer:
            raise ConfigError("gateway.reward: posted needs gateway.scorer, the program that "
                              "posts each episode's reward with its reward key (an agent's key "
                              "cannot post one)")
        if out.timeout_s <= 0 or out.concurrency < 1:
            raise ConfigError("gateway.timeout_s and gateway.concurrency must be positive")
        if out.memory_mb < 0:
            raise ConfigError("gateway.memory_mb must be 0 (no limit) or more")
        if out.sandbox not in ("auto", "bubblewrap", "none"):
            raise ConfigError("gateway.sandbox must be auto, bubblewrap or none")
        if out.sandbox == "bubblewrap" and bubblewrap_works():
            raise ConfigError(f"gateway.sandbox: bubblewrap cannot run here: "
                              f"{bubblewrap_works()}")
        return out


def _argv(value: Any) -> list[str]:
    if isinstance(value, str):
        value = shlex.split(value)
    if value is None or not isinstance(value, list | tuple) or \
            not all(isinstance(a, str) for a in value):
        return []
    argv = list(value)
    if argv and argv[0] == "python":  # the trainer's own interpreter (its packages, its venv)
        argv[0] = sys.executable
    return argv


def sandbox_available() -> bool:
    """Whether ``gateway.sandbox: bubblewrap`` works on this machine."""
    return not bubblewrap_works()


__all__ = ["AgentSettings", "sandbox_available"]
