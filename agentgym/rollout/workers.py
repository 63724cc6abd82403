"""Env workers: the engine's handle on one environment instance, local or remote.

A worker wraps one env made with :func:`agentgym.make` and exposes async ``reset``, ``step``,
``expert_actions`` and ``close``. :class:`LocalEnvWorker` runs the env in this process; the Ray
backend (:mod:`agentgym.rollout.ray_backend`) runs it in an actor. Workers do not apply timeouts
themselves: the episode runner bounds every call.

Expert protocol (used by the ``scripted`` policy): the env's unwrapped object may implement
``expert_actions(task) -> list[action]``; otherwise a task may carry ``data["expert_actions"]``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import Any

from ..env import StepResult
from ..registry import make

logger = logging.getLogger(__name__)

WorkerFactory = Callable[[], Awaitable["EnvWorker"]]


class EnvWorker(ABC):
    """One env instance the engine can reset and step many times."""

    env_id: str = ""
    instructions: str = ""
    """The env's system prompt."""
    tools: list[dict[str, Any]] = []
    """The env's tools as OpenAI function schemas."""

    @abstractmethod
    async def reset(
        self, seed: int | None, options: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode; returns ``(observation, info)``."""

    @abstractmethod
    async def step(self, action: Any) -> StepResult:
        """Apply an action."""

    @abstractmethod
    async def expert_actions(self) -> list[Any] | None:
        """The expert's actions for the current task, or None when the env has no expert."""

    @abstractmethod
    def close(self, timeout_s: float = 10.0) -> None:
        """Release the env without blocking the caller for more than ``timeout_s``."""


def env_expert_actions(env: Any) -> list[Any] | None:
    """Apply the expert protocol to a local env (wrappers are looked through)."""
    base = getattr(env, "unwrapped", env)
    task = getattr(base, "task", None)
    method = getattr(base, "expert_actions", None)
    if callable(method) and task is not None:
        return list(method(task))
    data = getattr(task, "data", None) or {}
    actions = data.get("expert_actions")
    return list(actions) if actions is not None else None


def close_in_background(close: Callable[[], Any], name: str, timeout_s: float) -> None:
    """Call ``close`` in a daemon thread and wait at most ``timeout_s`` (a hung env is left)."""

    def _run() -> None:
        try:
            close()
        except Exception:  # closing a broken env may fail; it is being discarded anyway
            logger.warning("closing env %s failed", name, exc_info=True)

    thread = threading.Thread(target=_run, name=f"close-{name}", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        logger.warning("env %s did not close within %.1fs; abandoned", name, timeout_s)


class LocalEnvWorker(EnvWorker):
    """An env in this process, stepped through its async twins."""

    def __init__(self, env: Any, env_id: str = "") -> None:
        self.env = env
        self.env_id = env_id
        self.instructions = getattr(env, "instructions", "") or ""
        toolset = getattr(env, "tools", None)
        self.tools = toolset.to_openai() if toolset is not None and len(toolset) else []

    @classmethod
    async def create(cls, env_id: str, **env_kwargs: Any) -> LocalEnvWorker:
        """Make the env in a worker thread (constructors may block) and wrap it."""
        env = await asyncio.to_thread(make, env_id, **env_kwargs)
        return cls(env, env_id)

    async def reset(
        self, seed: int | None, options: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset through ``env.areset``."""
        obs, info = await self.env.areset(seed=seed, options=options)
        return obs, info

    async def step(self, action: Any) -> StepResult:
        """Step through ``env.astep``."""
        return await self.env.astep(action)  # type: ignore[no-any-return]

    async def expert_actions(self) -> list[Any] | None:
        """The expert protocol on the local env (run in a thread)."""
        return await asyncio.to_thread(env_expert_actions, self.env)

    def close(self, timeout_s: float = 10.0) -> None:
        """Close the env in a daemon thread, waiting at most ``timeout_s``."""
        close_in_background(self.env.close, self.env_id or type(self.env).__name__, timeout_s)


def local_worker_factory(env_id: str, **env_kwargs: Any) -> WorkerFactory:
    """A factory making :class:`LocalEnvWorker` instances of ``env_id``."""

    async def factory() -> EnvWorker:
        return await LocalEnvWorker.create(env_id, **env_kwargs)

    return factory


__all__ = [
    "EnvWorker",
    "LocalEnvWorker",
    "WorkerFactory",
    "close_in_background",
    "env_expert_actions",
    "local_worker_factory",
]
