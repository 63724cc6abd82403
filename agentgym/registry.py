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
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import gymnasium
from gymnasium.envs.registration import EnvSpec as GymEnvSpec

from .errors import ConfigError, DuplicateRegistration
from .plugins import plugin_state
from .settings import resolve_max_turns
from .specs import ID_RE, SPECS, EnvSpec, load_entry_point
from .taskenv import TaskToolEnv
from .wrappers import RewardShaping, TurnLimit

if TYPE_CHECKING:
    from .env import AgentEnv

logger = logging.getLogger(__name__)

def register(id: str, entry_point: str | Callable[..., Any], **fields: Any) -> EnvSpec:
    """Register an environment under ``id``; fields are those of :class:`EnvSpec`.

    Registering the same id twice with the same entry point replaces the spec; with a different
    entry point it raises :class:`DuplicateRegistration`.
    """
    return SPECS.register(id, entry_point, **fields)


def _gym_spec(spec: EnvSpec) -> GymEnvSpec:
    """The Gymnasium spec mirroring ``spec`` (built by :func:`make`, no extra wrappers)."""
    return GymEnvSpec(
        id=spec.id, entry_point=functools.partial(_make_for_gymnasium, spec.id),
        max_episode_steps=resolve_max_turns(None, spec.max_turns), order_enforce=False,
        disable_env_checker=True,
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
    specs = all_specs()
    for env_spec in specs:
        _register_gymnasium(env_spec)
    return [s.id for s in specs]


def spec(id: str) -> EnvSpec:
    """Return the spec registered as ``id`` (an id, an unversioned id or an alias).

    An id with a registered prefix (``"remote:http://host:port/ENV"``) goes to its resolver
    (the ``resolvers`` registry: :func:`resolver_for`); the remote spec is read from the server.
    """
    resolver = resolver_for(id)
    if resolver is not None:
        return resolver.spec(id)  # type: ignore[no-any-return]
    plugin_state()
    return SPECS.resolve(id)


def resolver_for(id: str) -> Any | None:
    """The resolver registered for ``id``'s prefix (``remote`` for ``remote:...``), or None.

    Resolvers come from the plugins' ``agentgym_register_resolvers`` hook; each has
    ``spec(id) -> EnvSpec`` and may have ``make(id, *, max_turns=None, **kwargs) -> AgentEnv``
    (without it :func:`make` builds the spec like a registered one).
    """
    prefix, sep, _ = id.partition(":")
    if not sep or not prefix or "/" in prefix:
        return None
    resolvers = plugin_state().registries["resolvers"]
    return resolvers.load(prefix) if prefix in resolvers else None


def list_envs(family: str | None = None) -> list[str]:
    """Ids of every registered environment (plugins included), sorted; optionally one family."""
    plugin_state()
    return [s.id for s in SPECS.all() if family is None or s.family == family]


def all_specs() -> list[EnvSpec]:
    """Every registered spec, sorted by id."""
    plugin_state()
    return SPECS.all()


def make(id: str, *, max_turns: int | None = None, reward_fn: str | None = None,
         extra_tools: Sequence[str] = (), **kwargs: Any) -> AgentEnv:
    """Build the environment registered as ``id``.

    Keyword arguments override the spec's defaults and go to the env's constructor (``split``,
    ``backend``, ``dsn``...). A single-agent env is wrapped in :class:`agentgym.TurnLimit`, which
    sets ``truncated`` when the limit is reached: ``max_turns`` when given (it raises or lowers
    the spec's), else the spec's, else :data:`agentgym.settings.DEFAULT_MAX_TURNS`
    (:func:`agentgym.settings.resolve_max_turns` decides). A multi-agent env (not a
    :class:`gymnasium.Env`) is returned as made; asking it for a turn limit is a ConfigError.
    ``reward_fn`` names a function of the ``rewards`` registry (a plugin's
    ``agentgym_register_rewards``): ``fn(task, answer, info) -> float`` then scores every episode's
    final step. ``extra_tools`` names functions of the ``tools`` registry
    (``agentgym_register_tools``) added to the env's tool set.
    ``"remote:http://host:port/ENV"`` connects to a served env (:mod:`agentgym.serve`). A
    prefix's resolver without a ``make`` (the importers: ``reasoning-gym:``, ``textarena:``)
    only supplies the spec, which is then built like a registered one.
    """
    resolver = resolver_for(id)
    if resolver is not None and hasattr(resolver, "make"):
        return resolver.make(id, max_turns=max_turns, **kwargs)  # type: ignore[no-any-return]
    env = _make(id, max_turns, turn_limit=True, reward_fn=reward_fn, extra_tools=extra_tools,
                **kwargs)
    # how it was made: agentgym.fork builds its copies the same way
    made = (make, id, {"max_turns": max_turns, "reward_fn": reward_fn,
                       "extra_tools": tuple(extra_tools), **kwargs})
    setattr(env.unwrapped, "agentgym_made", made)  # noqa: B010 - any env class, typed loosely
    return env


def _make(id: str, max_turns: int | None, *, turn_limit: bool, reward_fn: str | None = None,
          extra_tools: Sequence[str] = (), **kwargs: Any) -> AgentEnv:
    """Build the env; ``turn_limit=False`` leaves the limit to the caller (Gymnasium)."""
    env_spec = spec(id)
    factory = (
        load_entry_point(env_spec.entry_point)
        if isinstance(env_spec.entry_point, str)
        else env_spec.entry_point
    )
    limit = resolve_max_turns(max_turns, env_spec.max_turns)
    merged = {**env_spec.kwargs, **kwargs}
    env = factory(**merged)
    env.unwrapped.agentgym_spec = replace(env_spec, kwargs=merged)
    gym_spec = _gym_spec(env_spec)
    gym_spec.kwargs = dict(merged)
    gym_spec.max_episode_steps = limit
    env.unwrapped.spec = gym_spec
    if extra_tools:
        _add_tools(env, env_spec.id, extra_tools)
    if reward_fn is not None:
        env = RewardShaping(env, _reward_shaper(env.unwrapped, reward_fn), env_spec.id)
    shaper = _episode_end_shaper()
    if shaper is not None:
        env = RewardShaping(env, shaper, env_spec.id)
    if not turn_limit:
        return env
    if not isinstance(env, gymnasium.Env):  # a multi-agent (PettingZoo AEC) env: no step count
        if max_turns is not None or env_spec.max_turns is not None:
            raise ConfigError(f"{env_spec.id} is not a single-agent gymnasium env, so make() "
                              "cannot apply a turn limit; limit its single-agent views instead")
        return env
    return TurnLimit(env, max_turns=limit)  # type: ignore[return-value]


def _add_tools(env: Any, env_id: str, names: Sequence[str]) -> None:
    """Add the ``tools`` registry's functions ``names`` to the env's tool set."""
    if not isinstance(env.unwrapped, TaskToolEnv):  # only a TaskToolEnv runs its tool set
        raise ConfigError(f"{env_id} has no tool set to add tools to (not a TaskToolEnv)")
    registry = plugin_state().registries["tools"]
    for name in names:
        env.unwrapped.tools.add(registry.load(name))


def _reward_shaper(inner: Any, name: str) -> Callable[[str, str | None, float, dict[str, Any]],
                                                       float]:
    """The ``rewards`` registry's ``name`` as a :class:`RewardShaping` function of env ``inner``."""
    fn = plugin_state().registries["rewards"].load(name)

    def shape(env_id: str, task_id: str | None, reward: float, info: dict[str, Any]) -> float:
        try:
            return float(fn(getattr(inner, "task", None), info.get("answer"), info))
        except Exception as e:  # fails closed: never the env's reward, never the run's end
            logger.exception("reward function %r failed; the episode scores 0", name)
            info["reward_fn_error"] = f"{type(e).__name__}: {e}"[:500]
            info["success"] = False
            return 0.0

    return shape


def _episode_end_shaper() -> Callable[[str, str | None, float, dict[str, Any]], float] | None:
    """A function calling the plugins' ``agentgym_episode_end`` hooks, or None when none has."""
    hook = plugin_state().manager.hook.agentgym_episode_end
    if not hook.get_hookimpls():
        return None

    def shape(env_id: str, task_id: str | None, reward: float, info: dict[str, Any]) -> float:
        try:
            values = hook(env_id=env_id, task_id=task_id, reward=reward, info=info)
        except Exception as e:  # fails closed, like a reward function: 0, the reason kept
            logger.exception("agentgym_episode_end hook failed; the episode scores 0")
            info["reward_fn_error"] = f"agentgym_episode_end: {type(e).__name__}: {e}"[:500]
            info["success"] = False
            return 0.0
        for value in values:
            if value is not None:
                reward = float(value)
        return reward

    return shape


SPECS.listeners.append(_register_gymnasium)

__all__ = [
    "ID_RE",
    "DuplicateRegistration",
    "EnvSpec",
    "all_specs",
    "list_envs",
    "load_entry_point",
    "make",
    "register",
    "register_gymnasium_envs",
    "resolver_for",
    "spec",
]
