"""The importers' id prefixes: each resolver turns ``<source>:<name>`` into an :class:`EnvSpec`.

:func:`agentgym.make` builds a resolver's spec like a registered one (the turn limit from
:func:`agentgym.settings.resolve_max_turns`, ``reward_fn``, ``extra_tools``), so an imported
env is wrapped exactly as a native one. Each resolver also says how to list what its source
offers (:meth:`names`), for ``agentgym list``.
"""

from __future__ import annotations

import functools
from typing import Any

from agentgym.errors import EnvNotFound
from agentgym.specs import EnvSpec

PLUGIN = "builtin-envs"


def _name(id: str, prefix: str) -> str:
    name = id.partition(":")[2].strip()
    if not name:
        raise EnvNotFound(f"{id!r} names no env: write {prefix}:<name>")
    return name


class ReasoningGymResolver:
    """``reasoning-gym:<task name>``: one of reasoning-gym's procedural generators."""

    prefix = "reasoning-gym"
    install = "pip install 'agentgym[interop]'"

    @staticmethod
    def spec(id: str) -> EnvSpec:
        """The spec of reasoning-gym's task (one answer per episode: ``max_turns=1``)."""
        from .rgym import check_name, load_tasks, make_env

        name = check_name(_name(id, "reasoning-gym"))
        return EnvSpec(
            id=f"reasoning-gym:{name}", entry_point=functools.partial(make_env, name),
            family="reasoning-gym", max_turns=1, plugin=PLUGIN,
            tasks=functools.partial(load_tasks, name),
            description=f"reasoning-gym's {name} generator, scored by its score_answer.",
        )

    @staticmethod
    def names() -> list[str]:
        """Every reasoning-gym task name."""
        from .rgym import task_names

        return task_names()


class TextArenaResolver:
    """``textarena:<game id>``: one of TextArena's games, multi-agent (PettingZoo AEC)."""

    prefix = "textarena"
    install = "pip install 'agentgym[interop]'"

    @staticmethod
    def spec(id: str) -> EnvSpec:
        """The spec of TextArena's game (no turn limit: a multi-agent env; its seats get the
        default one)."""
        from .textarena_env import check_game, make_env

        game = check_game(_name(id, "textarena"))
        return EnvSpec(
            id=f"textarena:{game}", entry_point=functools.partial(make_env, game),
            family="textarena", plugin=PLUGIN,
            description=f"TextArena's {game}; seat=/opponent= for one seat (SeatEnv).",
        )

    @staticmethod
    def names() -> list[str]:
        """Every TextArena game id."""
        from .textarena_env import game_ids

        return game_ids()


class OpenEnvResolver:
    """``openenv:<ws:// or http:// URL | docker image>``: a session of a running OpenEnv
    server, or of one started from its image in a container the env owns."""

    prefix = "openenv"
    install = "nothing (the importer speaks OpenEnv's WebSocket protocol itself)"
    unlisted = "any URL or image"
    """What ``agentgym importers`` shows for the count (:meth:`names` is empty)."""

    @staticmethod
    def spec(id: str) -> EnvSpec:
        """The spec (read without contacting the server: ``make`` does, and a dead server
        aborts the episode instead of failing the spec)."""
        url = _name(id, "openenv")
        make_env = OpenEnvResolver.maker(url)
        return EnvSpec(id=f"openenv:{url}", entry_point=functools.partial(make_env, url),
                       family="openenv", plugin=PLUGIN,
                       description=f"The OpenEnv server at {url} (one session per env).")

    @staticmethod
    def make(id: str, *, max_turns: int | None = None, **kwargs: Any) -> Any:
        """The env, in a TurnLimit (an URL is no Gymnasium id, so not built like a spec)."""
        from dataclasses import replace

        spec = OpenEnvResolver.spec(id)
        target = id.partition(":")[2].strip()
        env = OpenEnvResolver.maker(target)(target, max_turns=max_turns, **kwargs)
        env.unwrapped.agentgym_spec = replace(spec, kwargs=dict(kwargs))
        return env

    @staticmethod
    def maker(target: str) -> Any:
        """The ``make_env`` for ``target``: a URL's, or a Docker image's (no ``://``)."""
        if "://" in target:
            from . import openenv_env as module
        else:
            from . import openenv_docker as module  # type: ignore[no-redef]
        return module.make_env

    @staticmethod
    def names() -> list[str]:
        """None: any OpenEnv server's URL."""
        return []


class VerifiersResolver:
    """``verifiers:<taskset id>``: a verifiers (v1) environment, played turn by turn."""

    prefix = "verifiers"
    install = "make setup-verifiers (its own environment, .venv-verifiers)"
    unlisted = "installed tasksets"
    """What ``agentgym importers`` shows for the count (:meth:`names` is empty)."""

    @staticmethod
    def spec(id: str) -> EnvSpec:
        """The spec (read without the worker: ``make`` loads the taskset)."""
        from .verifiers_env import check_id, load_tasks, make_env

        name = check_id(_name(id, "verifiers"))
        return EnvSpec(id=f"verifiers:{name}", entry_point=functools.partial(make_env, name),
                       family="verifiers", plugin=PLUGIN,
                       tasks=functools.partial(load_tasks, name),
                       description=f"verifiers' {name} taskset, scored by its rewards.")

    @staticmethod
    def names() -> list[str]:
        """None: any taskset installed in .venv-verifiers."""
        return []


class SkyRLGymResolver:
    """``skyrl-gym:<env id>``: one of SkyRL-gym's text envs, tasks given in the call."""

    prefix = "skyrl-gym"
    install = "pip install 'agentgym[interop]'"

    @staticmethod
    def spec(id: str) -> EnvSpec:
        """The spec (single-step envs: ``max_turns=1``; the rows come with ``make``)."""
        from .skyrl_env import check_id, load_tasks, make_env, spec_max_turns

        name = check_id(_name(id, "skyrl-gym"))
        return EnvSpec(id=f"skyrl-gym:{name}", entry_point=functools.partial(make_env, name),
                       family="skyrl-gym", max_turns=spec_max_turns(name), plugin=PLUGIN,
                       tasks=functools.partial(load_tasks, name),
                       description=f"SkyRL-gym's {name} env, scored by its own step rewards.")

    @staticmethod
    def names() -> list[str]:
        """Every env id SkyRL-gym registers."""
        from .skyrl_env import env_ids

        return env_ids()


class GemResolver:
    """``gem:<GEM env id>``: one of GEM's envs (games, reasoning-gym tasks), in its worker."""

    prefix = "gem"
    install = "bash scripts/setup_gem_venv.sh (its own environment, .venv-gem)"

    @staticmethod
    def spec(id: str) -> EnvSpec:
        """The spec, with the turn limit GEM registers for the id (asks the worker)."""
        from .gem_env import load_tasks, make_env, spec_info

        name = _name(id, "gem")
        info = spec_info(name)
        return EnvSpec(id=f"gem:{name}", entry_point=functools.partial(make_env, name),
                       family="gem", max_turns=info.get("max_turns"), plugin=PLUGIN,
                       tasks=functools.partial(load_tasks, name),
                       description=f"GEM's {name}, scored by its own step rewards.")

    @staticmethod
    def names() -> list[str]:
        """Every GEM id that loads no Hub dataset."""
        from .gem_env import env_ids

        return env_ids()


RESOLVERS: dict[str, Any] = {"reasoning-gym": ReasoningGymResolver,
                             "textarena": TextArenaResolver, "openenv": OpenEnvResolver,
                             "verifiers": VerifiersResolver, "skyrl-gym": SkyRLGymResolver,
                             "gem": GemResolver}
"""Prefix -> resolver class, registered by :func:`register_resolvers`."""


def register_resolvers(register: Any) -> None:
    """Register every importer's prefix with the ``resolvers`` registry."""
    for prefix, resolver in RESOLVERS.items():
        register(prefix, resolver, description=(resolver.__doc__ or "").strip().splitlines()[0],
                 importer=True, install=resolver.install)


__all__ = ["RESOLVERS", "GemResolver", "OpenEnvResolver", "ReasoningGymResolver",
           "SkyRLGymResolver", "TextArenaResolver", "VerifiersResolver", "register_resolvers"]
