"""Environment specs and ``make``.

Specs are plain data. Ids look like ``ns/Name-vN`` (``sql/spider-lite-v0``); a behaviour change
bumps the version. Users may type an alias (``"webarena-lite"``) or the id without its version,
which resolves to the newest version. Entry points are ``"pkg.mod:Class"`` strings imported only
when :func:`make` is called, so registering costs nothing.

Every spec is also registered in Gymnasium's registry (entry point: :func:`make`), so once the
specs are loaded ``gymnasium.make("sql/spider-lite-v0")`` works too; importing
:mod:`agentgym.gymnasium_envs` loads them (``gymnasium.make("agentgym.gymnasium_envs:sql")``
in one call). Like Gymnasium's, :func:`make` sets ``env.unwrapped.spec`` (a
:class:`gymnasium.envs.registration.EnvSpec` with the kwargs used and the turn limit as
``max_episode_steps``) next to ``env.unwrapped.agentgym_spec``.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import gymnasium
from gymnasium.envs.registration import EnvSpec as GymEnvSpec

from .errors import DuplicateRegistration, EnvNotFound, RegistryError
from .registrars import load_entry_point

if TYPE_CHECKING:
    from .env import AgentEnv
    from .tasks import TaskSet

logger = logging.getLogger(__name__)

ID_RE = re.compile(r"^(?:(?P<ns>[\w.-]+)/)?(?P<name>[\w.:-]+?)(?:-v(?P<version>\d+))?$")


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
    """Default turn limit; :func:`make` wraps the env in :class:`agentgym.TurnLimit`."""
    tasks: str | Callable[[], TaskSet] | None = None
    """``"pkg.mod:function"`` returning the env's :class:`agentgym.TaskSet`, for listings."""
    plugin: str = ""
    """Plugin that registered the spec (empty when registered by user code)."""

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


_specs: dict[str, EnvSpec] = {}
_aliases: dict[str, str] = {}
_lock = threading.RLock()


def register(id: str, entry_point: str | Callable[..., Any], **fields: Any) -> EnvSpec:
    """Register an environment under ``id``; fields are those of :class:`EnvSpec`.

    Registering the same id twice with the same entry point replaces the spec; with a different
    entry point it raises :class:`DuplicateRegistration`.
    """
    if not ID_RE.match(id):
        raise RegistryError(f"invalid env id {id!r}: expected 'namespace/name-vN'")
    fields["aliases"] = tuple(fields.get("aliases", ()))
    spec = EnvSpec(id=id, entry_point=entry_point, **fields)
    with _lock:
        old = _specs.get(id)
        if old is not None and old.entry_point != entry_point:
            raise DuplicateRegistration(f"env {id!r} is already registered by {old.plugin!r}")
        for alias in spec.aliases:
            owner = _aliases.get(alias)
            if owner is not None and owner != id:
                raise DuplicateRegistration(f"alias {alias!r} already points to {owner!r}")
        _specs[id] = spec
        for alias in spec.aliases:
            _aliases[alias] = id
        _register_gymnasium(spec)
    return spec


def _gym_spec(spec: EnvSpec) -> GymEnvSpec:
    """The Gymnasium spec mirroring ``spec`` (built by :func:`make`, no extra wrappers)."""
    return GymEnvSpec(
        id=spec.id, entry_point=functools.partial(_make_for_gymnasium, spec.id),
        max_episode_steps=spec.max_turns, order_enforce=False, disable_env_checker=True,
        kwargs=dict(spec.kwargs),
    )  # fmt: skip


def _register_gymnasium(spec: EnvSpec) -> None:
    """Mirror ``spec`` into Gymnasium's registry (not when Gymnasium's own id is taken)."""
    gym_registry = gymnasium.envs.registration.registry
    old = gym_registry.get(spec.id)
    if old is None or (isinstance(old.entry_point, functools.partial)
                       and old.entry_point.func is _make_for_gymnasium):  # fmt: skip
        gym_registry[spec.id] = _gym_spec(spec)


def _make_for_gymnasium(id: str, **kwargs: Any) -> AgentEnv:
    """Gymnasium's entry point: :func:`make` without the turn limit (Gymnasium adds TimeLimit)."""
    return _make(id, None, turn_limit=False, **kwargs)


def register_gymnasium_envs() -> list[str]:
    """Load every plugin's specs and make sure each is in Gymnasium's registry; return the ids."""
    ids = list_envs()
    with _lock:
        for env_id in ids:
            _register_gymnasium(_specs[env_id])
    return ids


def _clear_plugin_specs() -> None:
    with _lock:
        for env_id in [i for i, s in _specs.items() if s.plugin]:
            spec = _specs.pop(env_id)
            for alias in spec.aliases:
                _aliases.pop(alias, None)


def _ensure_plugins() -> None:
    from .plugins import plugin_state

    plugin_state()


def _resolve(id: str) -> EnvSpec:
    if id in _specs:
        return _specs[id]
    if id in _aliases:
        return _specs[_aliases[id]]
    m = ID_RE.match(id)
    if m and m.group("version") is None:
        versions = [s for s in _specs.values() if re.fullmatch(re.escape(id) + r"-v\d+", s.id)]
        if versions:
            return max(versions, key=lambda s: s.version or 0)
    close = [s for s in sorted(_specs) if id.lower() in s.lower()]
    hint = f"; did you mean {', '.join(close[:5])}?" if close else "; see `agentgym list`"
    raise EnvNotFound(f"no environment registered as {id!r}{hint}")


def spec(id: str) -> EnvSpec:
    """Return the spec registered as ``id`` (an id, an unversioned id or an alias)."""
    _ensure_plugins()
    with _lock:
        return _resolve(id)


def list_envs(family: str | None = None) -> list[str]:
    """Ids of every registered environment (plugins included), sorted; optionally one family."""
    _ensure_plugins()
    with _lock:
        return sorted(i for i, s in _specs.items() if family is None or s.family == family)


def all_specs() -> list[EnvSpec]:
    """Every registered spec, sorted by id."""
    _ensure_plugins()
    with _lock:
        return [_specs[i] for i in sorted(_specs)]


def make(id: str, *, max_turns: int | None = None, **kwargs: Any) -> AgentEnv:
    """Build the environment registered as ``id``.

    Keyword arguments override the spec's defaults and go to the env's constructor (``split``,
    ``backend``, ``dsn``...). ``max_turns`` (default: the spec's) wraps the env in
    :class:`agentgym.TurnLimit`, which sets ``truncated`` when the limit is reached.
    ``"remote:http://host:port/ENV"`` connects to a served env (:mod:`agentgym.serve`).
    """
    if id.startswith("remote:"):
        from .serve.client import make_remote

        return make_remote(id, max_turns=max_turns, **kwargs)
    return _make(id, max_turns, turn_limit=True, **kwargs)


def _make(id: str, max_turns: int | None, *, turn_limit: bool, **kwargs: Any) -> AgentEnv:
    """Build the env; ``turn_limit=False`` leaves the limit to the caller (Gymnasium)."""
    env_spec = spec(id)
    factory = (
        load_entry_point(env_spec.entry_point)
        if isinstance(env_spec.entry_point, str)
        else env_spec.entry_point
    )
    merged = {**env_spec.kwargs, **kwargs}
    env = factory(**merged)
    limit = max_turns if max_turns is not None else env_spec.max_turns
    env.unwrapped.agentgym_spec = replace(env_spec, kwargs=merged)
    gym_spec = _gym_spec(env_spec)
    gym_spec.kwargs = dict(merged)
    gym_spec.max_episode_steps = limit
    env.unwrapped.spec = gym_spec
    shaper = _episode_end_shaper()
    if shaper is not None:
        from .wrappers import RewardShaping

        env = RewardShaping(env, shaper, env_spec.id)
    if limit is not None and turn_limit:
        from .wrappers import TurnLimit

        env = TurnLimit(env, max_turns=limit)
    return env


def _episode_end_shaper() -> Callable[[str, str | None, float, dict[str, Any]], float] | None:
    """A function calling the plugins' ``agentgym_episode_end`` hooks, or None when none has."""
    from .plugins import plugin_state

    hook = plugin_state().manager.hook.agentgym_episode_end
    if not hook.get_hookimpls():
        return None

    def shape(env_id: str, task_id: str | None, reward: float, info: dict[str, Any]) -> float:
        try:
            values = hook(env_id=env_id, task_id=task_id, reward=reward, info=info)
        except Exception:  # a reward-shaping plugin must not end the run
            logger.exception("agentgym_episode_end hook failed; reward left unshaped")
            return reward
        for value in values:
            if value is not None:
                reward = float(value)
        return reward

    return shape
