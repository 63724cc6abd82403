"""``backend="ray"``: env workers as Ray actors, the engine and policy stay in the driver.

Each env instance lives in its own actor process (on any node of the cluster), so slow or
crashing envs cannot stall the driver, and env capacity scales past one machine. The driver's
:class:`~agentgym.rollout.EnvPool` treats actors like local workers: a hung or dead actor is
killed with ``ray.kill`` and replaced. Ray is imported only when this backend is used.

Connection: an already initialised Ray is used as is (tests call ``ray.init(num_cpus=2)``);
otherwise ``ray.init()`` joins the cluster named by ``RAY_ADDRESS`` or starts a local one.
The env's spec is sent to the actor, so envs registered at run time work too when their entry
point is importable there.

Placement: ``label_selector`` (Ray node labels, ``ray start --labels role=env``) and
``resources`` (custom resources, ``ray start --resources '{"env_slot": 64}'``) put the env actors
on CPU nodes while the driver (engine, policy, trainer) stays on the GPU node it was started on.
Without arguments they default to ``AGENTGYM_RAY_ENV_LABELS`` (``role=env,zone=a``) and
``AGENTGYM_RAY_ENV_RESOURCES`` (``env_slot=1``), so ``backend="ray"`` runs are placed without code
changes (docs/serve.md). Results equal the asyncio backend's on the same seeds: the episode
logic is the same and runs in the driver.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import asdict
from typing import Any

from ..env import StepResult
from ..errors import missing_extra
from ..registry import spec
from .workers import EnvWorker, WorkerFactory, env_expert_actions

logger = logging.getLogger(__name__)


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise missing_extra("ray", "ray") from e
    return ray


def require_ray() -> None:
    """Raise :class:`~agentgym.errors.MissingExtra` (one line) when ray is not installed."""
    _ray()


class EnvActor:
    """The body of the env actor: one env made from a spec, stepped synchronously."""

    def __init__(self, spec_fields: dict[str, Any], env_kwargs: dict[str, Any]) -> None:
        from ..registry import make, register

        env_id = spec_fields.pop("id")
        entry_point = spec_fields.pop("entry_point")
        register(env_id, entry_point, **spec_fields)
        self.env = make(env_id, **env_kwargs)

    def meta(self) -> tuple[str, list[dict[str, Any]]]:
        """The env's instructions and OpenAI tool schemas."""
        toolset = getattr(self.env, "tools", None)
        tools = toolset.to_openai() if toolset is not None and len(toolset) else []
        return getattr(self.env, "instructions", "") or "", tools

    def reset(self, seed: int | None, options: dict[str, Any]) -> Any:
        """``env.reset``."""
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> Any:
        """``env.step``."""
        return self.env.step(action)

    def expert_actions(self) -> list[Any] | None:
        """The expert protocol, applied in the actor."""
        return env_expert_actions(self.env)

    def close(self) -> None:
        """``env.close``."""
        self.env.close()

    def node_id(self) -> str:
        """The Ray node this actor runs on."""
        import ray

        return str(ray.get_runtime_context().get_node_id())


class RayEnvWorker(EnvWorker):
    """A driver-side handle on an :class:`EnvActor`."""

    def __init__(self, actor: Any, env_id: str, instructions: str, tools: list[dict[str, Any]]):
        self.actor = actor
        self.env_id = env_id
        self.instructions = instructions
        self.tools = tools

    async def reset(
        self, seed: int | None, options: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Remote reset."""
        obs, info = await self.actor.reset.remote(seed, options)
        return obs, info

    async def step(self, action: Any) -> StepResult:
        """Remote step."""
        return await self.actor.step.remote(action)  # type: ignore[no-any-return]

    async def expert_actions(self) -> list[Any] | None:
        """Remote expert actions."""
        return await self.actor.expert_actions.remote()  # type: ignore[no-any-return]

    def close(self, timeout_s: float = 10.0) -> None:
        """Ask the actor to close its env, then kill the actor (a hung one is killed anyway)."""
        ray = _ray()
        try:
            ray.get(self.actor.close.remote(), timeout=timeout_s)
        except Exception as e:  # dead, hung or broken actor: killing it is all that is left
            logger.warning("env actor %s did not close cleanly: %s", self.env_id, e)
        ray.kill(self.actor)


def _pairs(text: str, cast: Any) -> dict[str, Any]:
    out = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"expected key=value pairs separated by commas, got {text!r}")
        out[key.strip()] = cast(value.strip())
    return out


def placement_options(
    label_selector: dict[str, str] | None = None, resources: dict[str, float] | None = None
) -> dict[str, Any]:
    """Ray actor options placing env actors: given values, else the ``AGENTGYM_RAY_ENV_*`` vars."""
    if label_selector is None:
        label_selector = _pairs(os.environ.get("AGENTGYM_RAY_ENV_LABELS", ""), str)
    if resources is None:
        resources = _pairs(os.environ.get("AGENTGYM_RAY_ENV_RESOURCES", ""), float)
    options: dict[str, Any] = {}
    if label_selector:
        options["label_selector"] = dict(label_selector)
    if resources:
        options["resources"] = dict(resources)
    return options


def ray_worker_factory(
    env_id: str,
    *,
    num_cpus_per_env: float = 0.0,
    label_selector: dict[str, str] | None = None,
    resources: dict[str, float] | None = None,
    **env_kwargs: Any,
) -> WorkerFactory:
    """A factory starting one :class:`EnvActor` per worker (``num_cpus_per_env`` reserved).

    ``label_selector`` and ``resources`` place the actors (see the module docstring).
    """
    placement = placement_options(label_selector, resources)
    fields = asdict(spec(env_id))
    fields["aliases"] = tuple(fields["aliases"])
    fields.pop("kwargs")  # make() below passes the spec's kwargs merged with env_kwargs
    merged = {**spec(env_id).kwargs, **env_kwargs}

    actor_cls: Any = None

    async def factory() -> EnvWorker:
        nonlocal actor_cls
        ray = _ray()
        if not ray.is_initialized():
            await asyncio.to_thread(ray.init, ignore_reinit_error=True)
        if actor_cls is None:
            actor_cls = ray.remote(num_cpus=num_cpus_per_env, **placement)(EnvActor)
        actor = actor_cls.remote(dict(fields), merged)
        instructions, tools = await actor.meta.remote()
        return RayEnvWorker(actor, fields["id"], instructions, tools)

    return factory


__all__ = ["EnvActor", "RayEnvWorker", "placement_options", "ray_worker_factory"]
