"""The plugin manager: built on first use, never at import.

Plugins are found through the ``agentgym`` entry-point group (built-in families register through
the same group as third-party ones). A plugin that fails to import, or whose hook raises, is
reported with a :class:`PluginWarning` naming it and skipped; the others keep working.

Environment variables:

- ``AGENTGYM_LOAD_PLUGINS``: comma-separated entry-point names to load; all others are skipped
  (set it to an empty string to load none).
- ``AGENTGYM_BLOCK_PLUGINS``: comma-separated entry-point names never to load.
- ``AGENTGYM_TRACE_PLUGINS``: when set to ``1``, every hook call is logged on the
  ``agentgym.plugins.trace`` logger, which then writes to stderr itself (the user sees it without
  configuring logging).
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

import pluggy

from . import hookspecs
from .errors import PluginError
from .registrars import EnvRegistrar, NamedRegistrar, NamedRegistry
from .specs import SPECS

logger = logging.getLogger("agentgym.plugins")

ENTRY_POINT_GROUP = "agentgym"
REGISTRY_KINDS = ("tools", "sandboxes", "policies", "rewards", "trainers", "losses", "resolvers",
                  "services")
CORE_PLUGINS = {"builtin-serve": "agentgym.serve.plugin"}
"""agentgym's own plugins that live in the core package (loaded with the entry-point ones)."""
_SINGULAR = {"policies": "policy", "sandboxes": "sandbox", "losses": "loss"}


class PluginWarning(UserWarning):
    """A plugin could not be loaded or one of its hooks failed; it was skipped."""


@dataclass
class PluginState:
    """What the plugin manager loaded: the pluggy manager, registries and failures."""

    manager: pluggy.PluginManager
    registries: dict[str, NamedRegistry]
    failures: dict[str, str] = field(default_factory=dict)
    """Plugin name -> reason it was skipped."""


_state: PluginState | None = None
_lock = threading.RLock()


def _names_from_env(var: str) -> set[str] | None:
    value = os.environ.get(var)
    if value is None:
        return None
    return {n.strip() for n in value.split(",") if n.strip()}


def _warn(name: str, reason: str, state: PluginState) -> None:
    state.failures[name] = reason
    warnings.warn(f"agentgym plugin {name!r} skipped: {reason}", PluginWarning, stacklevel=3)


def _load_entry_point_plugins(state: PluginState) -> None:
    allow = _names_from_env("AGENTGYM_LOAD_PLUGINS")
    block = _names_from_env("AGENTGYM_BLOCK_PLUGINS") or set()
    seen: set[str] = set()
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if ep.name in seen or ep.name in block or (allow is not None and ep.name not in allow):
            continue
        seen.add(ep.name)
        try:
            plugin = ep.load()
            state.manager.register(plugin, name=ep.name)
        except Exception as e:  # a broken plugin must never break agentgym
            _warn(ep.name, f"{type(e).__name__}: {e}", state)


def _load_core_plugins(state: PluginState) -> None:
    import importlib

    for name, module in CORE_PLUGINS.items():
        try:
            state.manager.register(importlib.import_module(module), name=name)
        except Exception as e:  # as for any plugin: warn, never break agentgym
            _warn(name, f"{type(e).__name__}: {e}", state)


def call_each(
    state: PluginState, hook_name: str, *, only: object | None = None, **kwargs: Any
) -> list[Any]:
    """Call every implementation of ``hook_name`` separately, skipping (and warning on) failures.

    Registration hooks receive a registrar that records which plugin registered each object.
    ``only`` restricts the call to one plugin object (used by :func:`register_plugin`).
    """
    if only is None:
        caller = getattr(state.manager.hook, hook_name)
    else:
        others = [p for p in state.manager.get_plugins() if p is not only]
        caller = state.manager.subset_hook_caller(hook_name, others)
    results = []
    for impl in caller.get_hookimpls():
        name = state.manager.get_name(impl.plugin) or repr(impl.plugin)
        args = {k: (v(name) if callable(v) and k == "register" else v) for k, v in kwargs.items()}
        if os.environ.get("AGENTGYM_TRACE_PLUGINS") == "1":
            _trace_logger().info("%s from plugin %s", hook_name, name)
        try:
            results.append(impl.function(*(args[a] for a in impl.argnames)))
        except Exception as e:
            _warn(name, f"hook {hook_name} raised {type(e).__name__}: {e}", state)
    return results


def _trace_logger() -> logging.Logger:
    """The logger of AGENTGYM_TRACE_PLUGINS, with its own stderr handler (added once)."""
    trace = logging.getLogger(f"{__name__}.trace")
    if not any(getattr(h, "agentgym_trace", False) for h in trace.handlers):
        handler = logging.StreamHandler()  # stderr
        handler.setFormatter(logging.Formatter("agentgym plugin trace: %(message)s"))
        handler.agentgym_trace = True  # type: ignore[attr-defined]
        trace.addHandler(handler)
    trace.setLevel(logging.INFO)
    return trace


def _build() -> PluginState:
    manager = pluggy.PluginManager("agentgym")
    manager.add_hookspecs(hookspecs)
    registries = {k: NamedRegistry(_SINGULAR.get(k, k[:-1])) for k in REGISTRY_KINDS}
    state = PluginState(manager, registries)
    if os.environ.get("AGENTGYM_TRACE_PLUGINS") == "1":
        manager.trace.root.setwriter(_trace_logger().info)
        manager.enable_tracing()
    _load_entry_point_plugins(state)
    _load_core_plugins(state)
    manager.check_pending()
    _register_all(state)
    return state


def _register_all(state: PluginState, only: object | None = None) -> None:
    """Run the registration hooks (of every plugin, or of ``only``) into ``state``."""
    call_each(state, "agentgym_register_envs", only=only, register=EnvRegistrar)
    for kind in REGISTRY_KINDS:
        registry = state.registries[kind]
        call_each(
            state,
            f"agentgym_register_{kind}",
            only=only,
            register=lambda name, r=registry: NamedRegistrar(r, name),
        )


def plugin_state() -> PluginState:
    """Return the loaded plugin state, building it on first call."""
    global _state
    with _lock:
        if _state is None:
            _state = _build()
        return _state


def get_plugin_manager() -> pluggy.PluginManager:
    """Return the pluggy plugin manager, loading plugins on first call."""
    return plugin_state().manager


def get_registry(kind: str) -> NamedRegistry:
    """Return the registry of one kind: tools, sandboxes, policies, rewards, trainers or losses."""
    return plugin_state().registries[kind]


def register_plugin(plugin: object, name: str | None = None) -> None:
    """Register a plugin object at run time (tests, notebooks) and run its registration hooks.

    Raises :class:`PluginError` when the plugin cannot be registered (its name is taken, a hook
    has the wrong signature).
    """
    state = plugin_state()
    try:
        state.manager.register(plugin, name=name)
    except (ValueError, pluggy.PluginValidationError) as e:  # a name taken, a bad hook signature
        raise PluginError(f"cannot register plugin {name or plugin!r}: {e}") from e
    _register_all(state, only=plugin)


def reset_plugins() -> None:
    """Forget the loaded plugins; the next use rebuilds the manager (used by tests)."""
    global _state
    with _lock:
        _state = None
    SPECS.clear_plugins()
