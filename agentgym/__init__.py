"""agentgym: one env and tool API for training and evaluating LLM agents with multi-turn RL.

>>> import agentgym
>>> env = agentgym.make("sql")                       # doctest: +SKIP
>>> obs, info = env.reset(seed=0)                    # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(action)  # doctest: +SKIP
"""

from __future__ import annotations

from .env import AgentEnv, Observation, StepResult, make_observation
from .errors import (
    AgentGymError,
    ConfigError,
    DuplicateRegistration,
    EnvError,
    EnvNotFound,
    ForkError,
    InfrastructureError,
    MissingExtra,
    NameNotFound,
    PluginError,
    PolicyError,
    RegistryError,
    ResetNeeded,
    SplitLeakError,
    TaskError,
    ToolArgumentError,
    ToolCallParseError,
    ToolError,
    ToolNotFound,
    ToolSchemaError,
)
from .fork import afork, fork
from .gated import GatedReward
from .hookspecs import hookimpl
from .multiagent import IllegalAction, MultiAgentEnv
from .plugins import PluginWarning, get_plugin_manager, get_registry, register_plugin
from .registry import EnvSpec, all_specs, list_envs, make, register, spec
from .sandbox import (
    RunResult,
    Sandbox,
    SandboxClosed,
    SandboxError,
    SandboxLimits,
    SandboxRunError,
    SandboxTimeout,
    SandboxUnavailable,
)
from .seat import SeatEnv
from .specs import load_entry_point
from .taskenv import TaskToolEnv
from .tasks import Task, TaskSet
from .toolcalls import ToolCall, ToolResult, parse_tool_calls
from .tools import Tool, ToolSet, tool
from .wrappers import TurnLimit, Wrapper

__version__ = "0.1.0"

__all__ = [
    "AgentEnv",
    "AgentGymError",
    "ConfigError",
    "DuplicateRegistration",
    "EnvError",
    "EnvNotFound",
    "EnvSpec",
    "ForkError",
    "GatedReward",
    "IllegalAction",
    "InfrastructureError",
    "MissingExtra",
    "MultiAgentEnv",
    "NameNotFound",
    "Observation",
    "PluginError",
    "PluginWarning",
    "PolicyError",
    "RegistryError",
    "ResetNeeded",
    "RunResult",
    "Sandbox",
    "SandboxClosed",
    "SandboxError",
    "SandboxLimits",
    "SandboxRunError",
    "SandboxTimeout",
    "SandboxUnavailable",
    "SeatEnv",
    "SplitLeakError",
    "StepResult",
    "Task",
    "TaskError",
    "TaskSet",
    "TaskToolEnv",
    "Tool",
    "ToolArgumentError",
    "ToolCall",
    "ToolCallParseError",
    "ToolError",
    "ToolNotFound",
    "ToolResult",
    "ToolSchemaError",
    "ToolSet",
    "TurnLimit",
    "Wrapper",
    "__version__",
    "afork",
    "all_specs",
    "fork",
    "get_plugin_manager",
    "get_registry",
    "hookimpl",
    "list_envs",
    "load_entry_point",
    "make",
    "make_observation",
    "parse_tool_calls",
    "register",
    "register_plugin",
    "spec",
    "tool",
]
