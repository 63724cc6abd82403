"""Hook specifications: every hook an agentgym plugin can implement.

A plugin is a module (or object) with functions decorated by :data:`agentgym.hookimpl`, listed in
the ``agentgym`` entry-point group of its distribution. Registration hooks receive a registrar
object and call it; they return nothing. Hooks are called when the plugin manager is built (on
first use, never at import) and at episode boundaries, never per token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .registrars import EnvRegistrar, NamedRegistrar

hookspec = pluggy.HookspecMarker("agentgym")
hookimpl = pluggy.HookimplMarker("agentgym")


# -- registration (called once, when the plugin manager is built) -----------------------------


@hookspec
def agentgym_register_envs(register: EnvRegistrar) -> None:
    """Register environment specs: ``register(id, entry_point, ...)``."""


@hookspec
def agentgym_register_tools(register: NamedRegistrar) -> None:
    """Register reusable tools: ``register(name, "pkg.mod:function")``."""


@hookspec
def agentgym_register_sandboxes(register: NamedRegistrar) -> None:
    """Register sandbox backends: ``register(name, "pkg.mod:Class", available=callable)``."""


@hookspec
def agentgym_register_policies(register: NamedRegistrar) -> None:
    """Register policy backends selected by a prefix such as ``openai:`` or ``hf:``."""


@hookspec
def agentgym_register_rewards(register: NamedRegistrar) -> None:
    """Register reward functions ``fn(task, answer, info) -> float`` by name."""


@hookspec
def agentgym_register_trainers(register: NamedRegistrar) -> None:
    """Register trainers runnable by ``agentgym train`` (``algorithm:`` key in the config)."""


@hookspec
def agentgym_register_losses(register: NamedRegistrar) -> None:
    """Register policy losses and advantage estimators selectable by name in a trainer config."""


@hookspec
def agentgym_register_resolvers(register: NamedRegistrar) -> None:
    """Register env-id prefixes (``remote:``): ``register(prefix, "pkg.mod:Resolver")``."""


@hookspec
def agentgym_register_services(register: NamedRegistrar) -> None:
    """Register services the CLI runs by name (``serve-retriever``): ``register(name, fn)``."""


# -- episode boundaries ------------------------------------------------------------------------


@hookspec
def agentgym_episode_end(env_id: str, task_id: str | None, reward: float, info: dict[str, Any]) -> (
    float | None
):
    """Reshape an episode's final reward; return a new reward or ``None`` to keep it."""
