"""Wrappers that keep the async twins and the tool API of the wrapped env.

Gymnasium's :class:`gymnasium.Wrapper` no longer forwards unknown attributes, so :class:`Wrapper`
forwards the agentgym ones explicitly (``tools``, ``instructions``, ``areset``, ``astep``,
``aclose``). A time or turn limit is a wrapper, as in Gymnasium: :class:`TurnLimit` sets
``truncated`` and never ``terminated``; reward shaping by plugins is :class:`RewardShaping`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium

from .env import AgentEnv, Observation, StepResult
from .tools import ToolSet


class Wrapper(gymnasium.Wrapper[Observation, Any, Observation, Any]):
    """Base wrapper for agentgym envs; subclasses override the sync and async twins they change."""

    @property
    def _inner(self) -> Any:
        """The wrapped env, typed loosely: it may be an AgentEnv or another Wrapper."""
        return self.env

    @property
    def tools(self) -> ToolSet:
        """The wrapped env's tools."""
        return self._inner.tools  # type: ignore[no-any-return]

    @property
    def instructions(self) -> str:
        """The wrapped env's system prompt."""
        return self._inner.instructions  # type: ignore[no-any-return]

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Async twin of :meth:`reset`."""
        return await self._inner.areset(seed=seed, options=options)  # type: ignore[no-any-return]

    async def astep(self, action: Any) -> StepResult:
        """Async twin of :meth:`step`."""
        return await self._inner.astep(action)  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        await self._inner.aclose()

    fork_fields: tuple[str, ...] = ()
    """This layer's own episode state, copied into a fork (:func:`agentgym.fork`)."""

    def fork(self, n: int = 1) -> list[Any]:
        """``n`` independent copies of the wrapped env in its current state
        (:func:`agentgym.fork`)."""
        from .fork import fork

        return fork(self, n)

    async def afork(self, n: int = 1) -> list[Any]:
        """Async twin of :meth:`fork`."""
        from .fork import afork

        return await afork(self, n)


class TurnLimit(Wrapper):
    """Truncate the episode after ``max_turns`` steps (``truncated=True``, ``terminated`` as is).

    The one place a turn limit is enforced: :func:`agentgym.make` applies it with the limit
    :func:`agentgym.settings.resolve_max_turns` decided; nothing else counts turns.
    """

    def __init__(self, env: AgentEnv | gymnasium.Env, max_turns: int) -> None:
        super().__init__(env)
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be an integer >= 1, got {max_turns!r}")
        self.max_turns = max_turns
        self.turns = 0

    fork_fields = ("turns",)
    """A fork continues the parent's turn count."""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Reset the env and the turn counter."""
        self.turns = 0
        return super().reset(seed=seed, options=options)

    def _count(self, result: StepResult) -> StepResult:
        obs, reward, terminated, truncated, info = result
        self.turns += 1
        if self.turns >= self.max_turns and not terminated:
            truncated = True
            info = {**info, "truncated_reason": f"turn limit {self.max_turns}"}
        return obs, reward, terminated, truncated, info

    def step(self, action: Any) -> StepResult:
        """Step the env and truncate at the turn limit."""
        return self._count(self._inner.step(action))

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Async twin of :meth:`reset`."""
        self.turns = 0
        return await super().areset(seed=seed, options=options)

    async def astep(self, action: Any) -> StepResult:
        """Async twin of :meth:`step`."""
        return self._count(await self._inner.astep(action))


Shaper = Callable[[str, "str | None", float, dict[str, Any]], float]
"""``shape(env_id, task_id, reward, info) -> reward`` (see :class:`RewardShaping`)."""


class RewardShaping(Wrapper):
    """Replace the reward of an episode's final step by ``shape(env_id, task_id, reward, info)``.

    :func:`agentgym.make` applies it when a plugin implements the ``agentgym_episode_end`` hook,
    so envs never reach into the plugin manager themselves. Aborted episodes (an
    infrastructure failure) are left alone: there is no outcome to reshape.
    """

    def __init__(self, env: AgentEnv | gymnasium.Env, shape: Shaper, env_id: str) -> None:
        super().__init__(env)
        self.shape = shape
        self.env_id = env_id

    def _apply(self, result: StepResult) -> StepResult:
        obs, reward, terminated, truncated, info = result
        if terminated and not info.get("aborted"):
            reward = float(self.shape(self.env_id, info.get("task_id"), float(reward), info))
        return obs, reward, terminated, truncated, info

    def step(self, action: Any) -> StepResult:
        """Step the env and reshape a final reward."""
        return self._apply(self._inner.step(action))

    async def astep(self, action: Any) -> StepResult:
        """Async twin of :meth:`step`."""
        return self._apply(await self._inner.astep(action))
