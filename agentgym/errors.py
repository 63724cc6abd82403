"""Errors raised by agentgym.

Every error derives from :class:`AgentGymError`, so ``except AgentGymError`` catches them all::

    AgentGymError
    ├── RegistryError
    │   ├── EnvNotFound
    │   ├── NameNotFound
    │   └── DuplicateRegistration
    ├── PluginError
    ├── MissingExtra
    ├── ToolError
    │   ├── ToolSchemaError
    │   ├── ToolNotFound
    │   ├── ToolArgumentError
    │   └── ToolCallParseError
    ├── TaskError
    │   └── SplitLeakError
    ├── EnvError
    │   ├── ResetNeeded
    │   └── InvalidAction
    ├── PolicyError
    ├── ConfigError
    └── SandboxError                (defined in agentgym.sandbox)
        ├── SandboxUnavailable
        ├── SandboxClosed
        └── SandboxRunError
            └── SandboxTimeout
Errors about a model's action (bad tool call, unknown tool, wrong argument) are turned into error
observations by the env; they only escape when the caller uses the tool API directly.
"""

from __future__ import annotations


class AgentGymError(Exception):
    """Base class of every agentgym error."""


class RegistryError(AgentGymError):
    """A problem with registering or looking up a named object."""


class EnvNotFound(RegistryError):
    """No environment is registered under the requested id."""


class NameNotFound(RegistryError):
    """No policy, sandbox, trainer, loss or reward is registered under the requested name."""


class DuplicateRegistration(RegistryError):
    """Two registrations claim the same id with different entry points."""


class PluginError(AgentGymError):
    """A plugin could not be loaded or one of its hooks failed."""


class MissingExtra(AgentGymError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class ToolError(AgentGymError):
    """A problem with a tool or a tool call."""


class ToolSchemaError(ToolError):
    """A Python function cannot be turned into a tool schema."""


class ToolNotFound(ToolError):
    """A tool call names a tool the env does not offer."""


class ToolArgumentError(ToolError):
    """A tool call's arguments do not validate against the tool's schema."""


class ToolCallParseError(ToolError):
    """Model output could not be parsed into tool calls."""


class TaskError(AgentGymError):
    """A problem with a task set: bad file, unknown split or task id."""


class SplitLeakError(TaskError):
    """The same task appears in two splits."""


class EnvError(AgentGymError):
    """An environment was used against its contract."""


class ResetNeeded(EnvError):
    """``step`` was called before ``reset`` or after the episode ended."""


class InvalidAction(EnvError):
    """An action is not of a type the env accepts (raised only by strict helpers)."""


class PolicyError(AgentGymError):
    """A policy failed to produce a turn (server error, timeout, bad response)."""


class ConfigError(AgentGymError):
    """A configuration file or override is invalid."""


def missing_extra(package: str, extra: str) -> MissingExtra:
    """Build the error raised when ``package`` is missing, naming the extra that installs it."""
    return MissingExtra(
        f"{package!r} is not installed; install it with: pip install 'agentgym[{extra}]'"
    )
