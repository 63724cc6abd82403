"""Named registries and the registrar objects handed to plugin hooks.

Every kind of pluggable object (policies, sandboxes, rewards, trainers, losses, tools) lives in a
:class:`NamedRegistry`. Entries hold either the object itself or a ``"pkg.mod:attr"`` string that
is imported only when the entry is loaded, so registering is free.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import DuplicateRegistration, NameNotFound
from .specs import SPECS, load_entry_point


@dataclass(frozen=True)
class Entry:
    """One registered object: a name, the object or its entry point, and where it came from."""

    name: str
    target: Any
    """The object itself or a ``"pkg.mod:attr"`` string imported on :meth:`load`."""
    description: str = ""
    plugin: str = ""
    """Name of the plugin that registered it."""
    available: Callable[[], bool] | None = None
    """Optional cheap check that the object can run here (a binary present, a daemon up)."""
    extra: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Any:
        """Return the registered object, importing it if it was given as a string."""
        if isinstance(self.target, str):
            return load_entry_point(self.target)
        return self.target

    def is_available(self) -> bool:
        """Run the availability check; entries without one are always available."""
        return True if self.available is None else bool(self.available())


class NamedRegistry:
    """A mapping from names to :class:`Entry` for one kind of object."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry] = {}

    def add(self, entry: Entry) -> None:
        """Add an entry; re-adding the same target is a no-op, a different one is an error."""
        old = self._entries.get(entry.name)
        if old is not None and old.target != entry.target:
            raise DuplicateRegistration(
                f"{self.kind} {entry.name!r} is registered twice "
                f"({old.plugin or 'user'} and {entry.plugin or 'user'})"
            )
        self._entries[entry.name] = entry

    def get(self, name: str) -> Entry:
        """Return the entry named ``name`` or raise :class:`NameNotFound` listing the choices."""
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise NameNotFound(f"no {self.kind} named {name!r}; registered: {known}") from None

    def load(self, name: str) -> Any:
        """Return the object registered under ``name``."""
        return self.get(name).load()

    def names(self) -> list[str]:
        """Sorted registered names."""
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[Entry]:
        return iter(sorted(self._entries.values(), key=lambda e: e.name))

    def __len__(self) -> int:
        return len(self._entries)


class NamedRegistrar:
    """Callable handed to ``agentgym_register_*`` hooks: ``register(name, target, ...)``."""

    def __init__(self, registry: NamedRegistry, plugin: str = "") -> None:
        self._registry = registry
        self._plugin = plugin

    def __call__(
        self,
        name: str,
        target: Any,
        *,
        description: str = "",
        available: Callable[[], bool] | None = None,
        **extra: Any,
    ) -> None:
        """Register ``target`` (object or ``"pkg.mod:attr"``) under ``name``."""
        self._registry.add(
            Entry(name, target, description, self._plugin, available, dict(extra))
        )


class EnvRegistrar:
    """Callable handed to ``agentgym_register_envs``; same signature as ``agentgym.register``."""

    def __init__(self, plugin: str = "") -> None:
        self._plugin = plugin

    def __call__(self, id: str, entry_point: str | Callable[..., Any], **spec_fields: Any) -> None:
        """Register an env spec; see :func:`agentgym.register` for the fields."""
        spec_fields.setdefault("plugin", self._plugin)
        SPECS.register(id, entry_point, **spec_fields)


__all__ = ["EnvRegistrar", "Entry", "NamedRegistrar", "NamedRegistry", "load_entry_point"]
