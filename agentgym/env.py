"""The environment contract: a :class:`gymnasium.Env` with async twins, tools and instructions.

An env author implements either the sync pair ``_reset``/``_step`` or the async pair
``_areset``/``_astep``; the other style is derived:

- sync-native envs get ``areset``/``astep`` that run the sync method in a worker thread;
- async-native envs get ``reset``/``step`` that run the coroutine on the env's own event loop
  (a private thread), so sync callers and notebooks work too.

Use one instance either synchronously or asynchronously, not both.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import gymnasium

from .errors import EnvError, ResetNeeded
from .fork_trace import record_reset, record_step
from .spaces import AgentAction, observation_space
from .tools import ToolSet

T = TypeVar("T")

Observation = dict[str, Any]
StepResult = tuple[Observation, float, bool, bool, dict[str, Any]]

# Sync envs stepped from the async engine run here; the default executor has too few threads
# (min(32, cpus + 4)) for hundreds of concurrent episodes.
_ENV_THREADS = concurrent.futures.ThreadPoolExecutor(max_workers=128, thread_name_prefix="env")


def make_observation(text: str, images: tuple[bytes, ...] = ()) -> Observation:
    """Build an observation dict: the text for the model plus optional PNG images."""
    return {"text": text, "images": tuple(images)}


class AgentEnv(gymnasium.Env[Observation, Any]):
    """Base class of every agentgym environment.

    Subclasses set :attr:`instructions` (the system prompt), :attr:`tools` (a :class:`ToolSet`)
    and implement ``_reset``/``_step`` or ``_areset``/``_astep``. An env that implements both
    runs ``reset``/``step`` on its sync hooks and ``areset``/``astep`` on its async ones (no hop
    through the env's loop thread); its ``close`` calls ``_aclose`` (when the loop ran) and
    ``_close``.
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012
    instructions: str = ""
    """System prompt: what the agent is, the action format, the tools."""
    tools: ToolSet = ToolSet()
    """Tools the agent may call; empty for pure text envs."""
    agentgym_spec: Any = None
    """The :class:`agentgym.EnvSpec` this env was made from (set by :func:`agentgym.make`)."""
    fork_origin: str = ""
    """How this env was made by :func:`agentgym.fork`: ``state``, ``snapshot`` or ``replay``
    (empty for an env that is not a fork)."""

    def __init__(self) -> None:
        self.observation_space = observation_space()
        self.action_space = AgentAction()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self.render_mode = "ansi"
        self._last_text = ""

    # -- hooks for authors -------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        raise NotImplementedError

    def _step(self, action: Any) -> StepResult:
        raise NotImplementedError

    async def _areset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        raise NotImplementedError

    async def _astep(self, action: Any) -> StepResult:
        raise NotImplementedError

    def _close(self) -> None:
        """Release resources (sync envs)."""

    async def _aclose(self) -> None:
        """Release resources (async envs)."""

    # -- derived API -------------------------------------------------------------------------

    @classmethod
    def _is_async_native(cls) -> bool:
        return cls._astep is not AgentEnv._astep

    @classmethod
    def _is_sync_native(cls) -> bool:
        return cls._step is not AgentEnv._step

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        # A Ctrl-C (KeyboardInterrupt) may land anywhere in here: before the coroutine is
        # scheduled it is closed (never "was never awaited"), after it the work is cancelled.
        try:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._loop_thread = threading.Thread(
                    target=self._loop.run_forever, name=f"{type(self).__name__}-loop",
                    daemon=True)
                self._loop_thread.start()
            future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        except BaseException:
            coro.close()
            raise
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start an episode; ``seed`` or ``options={"task_id": ...}`` picks the task."""
        super().reset(seed=seed)
        record_reset(self, seed, options)
        if self._is_async_native() and not self._is_sync_native():
            obs, info = self._run(self._areset(dict(options or {})))
        else:
            obs, info = self._reset(dict(options or {}))
        self._last_text = obs["text"]
        return obs, info

    def step(self, action: Any) -> StepResult:
        """Apply the model's action (text, message dict or tool calls)."""
        record_step(self, action)
        if self._is_async_native() and not self._is_sync_native():
            result = self._run(self._astep(action))
        else:
            result = self._step(action)
        self._last_text = result[0]["text"]
        return result

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Async twin of :meth:`reset`."""
        if self._is_async_native():
            gymnasium.Env.reset(self, seed=seed)
            record_reset(self, seed, options)
            obs, info = await self._areset(dict(options or {}))
            self._last_text = obs["text"]
            return obs, info
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            _ENV_THREADS, lambda: self.reset(seed=seed, options=options)
        )

    async def astep(self, action: Any) -> StepResult:
        """Async twin of :meth:`step`."""
        if self._is_async_native():
            record_step(self, action)
            result = await self._astep(action)
            self._last_text = result[0]["text"]
            return result
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_ENV_THREADS, self.step, action)

    def fork(self, n: int = 1) -> list[Any]:
        """``n`` independent copies of this env in its current state (:func:`agentgym.fork`)."""
        from .fork import fork

        return fork(self, n)

    async def afork(self, n: int = 1) -> list[Any]:
        """Async twin of :meth:`fork`."""
        from .fork import afork

        return await afork(self, n)

    def close(self) -> None:
        """Release the env's resources."""
        loop = self._loop if self._is_async_native() else None
        if loop is not None:
            self._run(self._aclose())
            thread = self._loop_thread
            loop.call_soon_threadsafe(loop.stop)
            self._loop = self._loop_thread = None
            if thread is not None:  # closed here, not collected running at the interpreter's exit
                thread.join(timeout=5)
            if not loop.is_running():
                loop.close()
        if loop is None or self._is_sync_native():
            self._close()

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        if self._is_async_native():
            await self._aclose()
            if self._is_sync_native():
                await asyncio.get_running_loop().run_in_executor(_ENV_THREADS, self._close)
        else:
            await asyncio.get_running_loop().run_in_executor(_ENV_THREADS, self.close)

    def render(self) -> str:  # type: ignore[override]
        """The last observation's text."""
        return self._last_text


def require(condition: bool, message: str) -> None:
    """Raise :class:`EnvError` with ``message`` when ``condition`` is false."""
    if not condition:
        raise EnvError(message)


__all__ = ["AgentEnv", "Observation", "ResetNeeded", "StepResult", "make_observation", "require"]
