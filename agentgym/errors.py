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
    │   ├── InvalidAction
    │   └── ForkError           the env cannot be forked here (not forkable, replay not exact)
    ├── PolicyError
    ├── ConfigError
    │   └── UnsafeFolder        a state folder another user made, a symlink, or others may write
    ├── PoolTimeout                 (also a TimeoutError)
    ├── InfrastructureError         the infrastructure failed, not the model
    └── SandboxError
        ├── SandboxUnavailable
        ├── SandboxClosed
        └── SandboxRunError
            └── SandboxTimeout

Errors about a model's action (bad tool call, unknown tool, wrong argument) are turned into error
observations by the env; they only escape when the caller uses the tool API directly.

:class:`InfrastructureError` is the one rule for failures that are not the model's: a killed
container, a dead database connection, a crashed browser or X server, a reference answer that
cannot be computed. Any env (built-in or plugin) raises it (or a subclass, or an error that also
derives from it) from a tool, ``reset`` or ``step``; :class:`agentgym.TaskToolEnv` retries a tool
call once when the error says ``retryable=True`` (safe: the call has no effect outside the
episode), and otherwise ends the episode with ``info["aborted"] = True`` and
``info["abort_reason"]``. The rollout engine records such an episode as ``aborted`` with that
reason, never as reward 0 for the policy.
"""

from __future__ import annotations

from typing import Any


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
    """A plugin object could not be registered (raised by :func:`agentgym.register_plugin`).

    Plugins found through entry points never raise: a broken one is skipped with a
    :class:`agentgym.plugins.PluginWarning`.
    """


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
    """An action is not of a type the env accepts (raised by strict helpers such as the wire
    protocol of a served env; ``step`` itself turns bad actions into observations)."""


class ForkError(EnvError):
    """The env cannot be forked in its state: not made by make(), not forkable, replay not exact."""


class InfrastructureError(AgentGymError):
    """The infrastructure failed (killed container, dead connection, crashed tool server).

    The episode is aborted with this message as its reason and never scored as the model's
    failure. ``retryable`` says whether repeating the same call is safe and may succeed (a
    read-only query on a dropped connection, a run in a sandbox whose container died).
    """

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


def is_infrastructure_error(error: BaseException) -> bool:
    """Whether ``error`` (or an exception it was raised from) is an :class:`InfrastructureError`."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, InfrastructureError):
            return True
        seen.add(id(current))
        current = current.__cause__
    return False


class PoolTimeout(AgentGymError, TimeoutError):
    """No env worker became free within the acquire timeout."""


class PolicyError(AgentGymError):
    """A policy failed to produce a turn (server error, timeout, bad response)."""


class ConfigError(AgentGymError):
    """A configuration file or override is invalid."""


class UnsafeFolder(ConfigError):
    """A state folder exists but is not this user's alone (another owner, a symlink, writable by
    others); nothing in it is used."""


class SandboxError(AgentGymError):
    """Base class of every sandbox error."""


class SandboxUnavailable(SandboxError):
    """The backend cannot run here; the message names what is missing."""


class SandboxClosed(SandboxError):
    """The sandbox was used after :meth:`agentgym.sandbox.Sandbox.close`."""


class SandboxRunError(SandboxError):
    """A run did not succeed; raised only by ``RunResult.check``. ``.result`` holds it."""

    def __init__(self, result: Any) -> None:
        super().__init__(result.summary())
        self.result = result


class SandboxTimeout(SandboxRunError):
    """A run hit its time limit; raised only by ``RunResult.check``."""


def missing_extra(package: str, extra: str) -> MissingExtra:
    """Build the error raised when ``package`` is missing, naming the extra that installs it."""
    return MissingExtra(
        f"{package!r} is not installed; install it with: pip install 'agentgym[{extra}]'"
    )


RUNTIME_FAULTS: tuple[type[BaseException], ...] = (
    InfrastructureError, RegistryError, ConfigError, MissingExtra, PluginError,
    SandboxUnavailable, SandboxClosed,
)
"""Errors that are the runtime's fault whatever the model sent: a missing backend or extra, a
bad setting, a sandbox that cannot start or was closed. Raised from a tool, they abort the
episode; a :class:`ToolError` or a failed run of the model's code (:class:`SandboxRunError`) is
the model's, answered with an error observation."""


def is_runtime_fault(error: BaseException) -> bool:
    """Whether ``error`` (or an exception it was raised from) is one of :data:`RUNTIME_FAULTS`."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, RUNTIME_FAULTS):
            return True
        seen.add(id(current))
        current = current.__cause__
    return False
