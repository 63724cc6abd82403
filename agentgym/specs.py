"""Environment specs and their store: the low module the registry, registrars and plugins share.

It imports nothing of agentgym but the errors, so every other registry module can import it at
the top: :mod:`.registrars` (the ``register`` callables handed to hooks) writes into
:data:`SPECS`, :mod:`.plugins` drops the plugins' specs when it forgets the plugins, and
:mod:`.registry` reads it for ``make``, ``spec`` and ``list_envs``.
"""

from __future__ import annotations

import difflib
import importlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import DuplicateRegistration, EnvNotFound, RegistryError

if TYPE_CHECKING:
    from .tasks import TaskSet

ID_RE = re.compile(r"^(?:(?P<ns>[\w.-]+)/)?(?P<name>[\w.:-]+?)(?:-v(?P<version>\d+))?$")
"""``[namespace/]name[-vN]``, as in Gymnasium."""


def load_entry_point(entry_point: str) -> Any:
    """Import ``"pkg.mod:attr.sub"`` and return the attribute."""
    module_name, sep, attr = entry_point.partition(":")
    if not sep or not module_name or not attr:
        raise RegistryError(f"entry point {entry_point!r} is not of the form 'pkg.mod:attr'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise RegistryError(f"cannot import {module_name!r} for {entry_point!r}: {e}") from e
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as e:
            raise RegistryError(f"{module_name!r} has no attribute {attr!r}") from e
    return obj


@dataclass(frozen=True)
class EnvSpec:
    """Everything needed to build one registered environment."""

    id: str
    """Full id, ``namespace/name-vN``."""
    entry_point: str | Callable[..., Any]
    """``"pkg.mod:Class"`` (imported on :func:`make`) or a callable returning the env."""
    kwargs: dict[str, Any] = field(default_factory=dict)
    """Default constructor keyword arguments; :func:`make` arguments override them."""
    family: str = ""
    """Env family shown by ``agentgym list``: web, gui, sql, code, search, game..."""
    description: str = ""
    """One line for listings."""
    aliases: tuple[str, ...] = ()
    """Short names that resolve to this id (``"sql"``, ``"webarena-lite"``)."""
    max_turns: int | None = None
    """Turn limit of the env; None = :data:`agentgym.settings.DEFAULT_MAX_TURNS`. :func:`make`
    resolves it (:func:`agentgym.settings.resolve_max_turns`) and wraps the env in
    :class:`agentgym.TurnLimit`."""
    tasks: str | Callable[[], TaskSet] | None = None
    """``"pkg.mod:function"`` returning the env's :class:`agentgym.TaskSet`, for listings."""
    plugin: str = ""
    """Plugin that registered the spec (empty when registered by user code)."""
    forkable: str = "auto"
    """How :func:`agentgym.fork` copies an episode mid-way: ``state`` (the env copies its own
    state, :meth:`agentgym.TaskToolEnv.fork_state`), ``replay`` (a fresh env replays the recorded
    actions from the same seed, checked to end on the same observation), ``no`` (refused), or
    ``auto`` (``state`` when the env class declares ``fork_fields``, else ``replay``)."""
    viewer: str | None = None
    """``"pkg.mod:function"`` writing the trajectory viewer of this env's episodes, called like
    :func:`agentgym.rollout.viewer.write_viewer` (GUI: clicks marked); None = the generic one."""

    @property
    def namespace(self) -> str:
        """The part of the id before ``/`` (empty when there is none)."""
        return self.id.split("/", 1)[0] if "/" in self.id else ""

    @property
    def version(self) -> int | None:
        """The ``-vN`` suffix as an int, or None."""
        m = ID_RE.match(self.id)
        return int(m.group("version")) if m and m.group("version") else None

    def load_tasks(self) -> TaskSet | None:
        """Load the env's task set (imports the family), or None when it has none."""
        if self.tasks is None:
            return None
        loader = load_entry_point(self.tasks) if isinstance(self.tasks, str) else self.tasks
        return loader()


class SpecStore:
    """Thread-safe store of env specs by id and alias.

    ``listeners`` are called with every spec added (the registry mirrors them into Gymnasium's
    registry this way).
    """

    def __init__(self) -> None:
        self._specs: dict[str, EnvSpec] = {}
        self._aliases: dict[str, str] = {}
        self._lock = threading.RLock()
        self.listeners: list[Callable[[EnvSpec], None]] = []

    def register(self, id: str, entry_point: str | Callable[..., Any], **fields: Any) -> EnvSpec:
        """Add a spec; see :func:`agentgym.register` for the rules."""
        if not ID_RE.match(id):
            raise RegistryError(f"invalid env id {id!r}: expected 'namespace/name-vN'")
        fields["aliases"] = tuple(fields.get("aliases", ()))
        spec = EnvSpec(id=id, entry_point=entry_point, **fields)
        with self._lock:
            old = self._specs.get(id)
            if old is not None and old.entry_point != entry_point:
                raise DuplicateRegistration(f"env {id!r} is already registered by {old.plugin!r}")
            for alias in spec.aliases:
                owner = self._aliases.get(alias)
                if owner is not None and owner != id:
                    raise DuplicateRegistration(f"alias {alias!r} already points to {owner!r}")
            self._specs[id] = spec
            for alias in spec.aliases:
                self._aliases[alias] = id
            for listener in self.listeners:
                listener(spec)
        return spec

    def resolve(self, id: str) -> EnvSpec:
        """The spec of an id, an alias or an unversioned id (its newest version)."""
        with self._lock:
            if id in self._specs:
                return self._specs[id]
            if id in self._aliases:
                return self._specs[self._aliases[id]]
            m = ID_RE.match(id)
            if m and m.group("version") is None:
                pattern = re.escape(id) + r"-v\d+"
                versions = [s for s in self._specs.values() if re.fullmatch(pattern, s.id)]
                if versions:
                    return max(versions, key=lambda s: s.version or 0)
            names = [*sorted(self._specs), *sorted(self._aliases)]
            close = [s for s in sorted(self._specs) if id.lower() in s.lower()]
            close = close or difflib.get_close_matches(id, names, n=3, cutoff=0.75)
        hint = f"; did you mean {', '.join(close[:5])}?" if close else "; see `agentgym list`"
        raise EnvNotFound(f"no environment registered as {id!r}{hint}")

    def all(self) -> list[EnvSpec]:
        """Every spec, sorted by id."""
        with self._lock:
            return [self._specs[i] for i in sorted(self._specs)]

    def clear_plugins(self) -> None:
        """Forget the specs registered by plugins (user registrations stay)."""
        with self._lock:
            for env_id in [i for i, s in self._specs.items() if s.plugin]:
                spec = self._specs.pop(env_id)
                for alias in spec.aliases:
                    self._aliases.pop(alias, None)


SPECS = SpecStore()
"""The process-wide store behind :func:`agentgym.register` and :func:`agentgym.make`."""

__all__ = ["ID_RE", "SPECS", "EnvSpec", "SpecStore", "load_entry_point"]
