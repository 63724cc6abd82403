"""Interruptible episodes for asynchronous and partial rollouts (APRIL).

:func:`drive` runs one :class:`~agentgym.rollout.Episode` through its public phases (reset,
policy turn, env turn) like the engine does, but it can be asked to stop
(:meth:`RunningEpisode.request_stop`):

- a wait for a free env or a policy turn in progress is cancelled at once; the cancelled turn
  leaves no trace (a turn is appended to the trajectory only when it returns), so the
  trajectory ends on a complete turn boundary;
- a reset or env step is never cancelled (the env's state would be unknown): the stop takes
  effect when it returns.

A stopped episode is *parked*: it keeps its env worker (mid-episode) and its trajectory, and a
later :func:`drive` call continues it with the remaining turn and token budget. Sampling seeds
derive from ``(group, task, sample, turn)``, so a resumed episode draws exactly what the
uninterrupted one would have; every token keeps the policy version that generated it, and the
loss mask stays 1 exactly on generated tokens (the trajectory's builder methods move the four
per-token lists together).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from agentgym.rollout import Engine, Episode, EpisodeRequest, Trajectory


@dataclass
class RunningEpisode:
    """One episode the rollout generator drives; it may park between turns and continue."""

    episode: Episode
    stop: bool = False
    """Set by :meth:`request_stop`; :func:`drive` parks the episode at the next boundary."""
    segments: int = 0
    """How many times :func:`drive` ran it (1 = never parked)."""
    in_env: bool = False
    """True during a reset or env step (cancelling then leaves the env's state unknown)."""
    task: asyncio.Task[Trajectory | None] | None = field(default=None, repr=False)
    """The asyncio task of the current :func:`drive` call (set by the generator)."""
    _interruptible: asyncio.Future[Any] | None = field(default=None, repr=False)

    @classmethod
    def new(cls, engine: Engine, request: EpisodeRequest) -> RunningEpisode:
        """A fresh episode of ``request`` on ``engine``'s policy, env id and limits."""
        return cls(Episode(request, engine.policy, engine.config, engine.env_id))

    @property
    def started(self) -> bool:
        """True once the env was reset (the episode holds a worker)."""
        return self.episode.worker is not None

    @property
    def done(self) -> bool:
        """True when the episode ended (terminated, truncated or aborted)."""
        return self.episode.done

    def request_stop(self) -> None:
        """Park at the next boundary; a wait for an env or a policy turn is cancelled now."""
        self.stop = True
        if self._interruptible is not None:
            self._interruptible.cancel()

    async def _interruptible_await(self, coro: Awaitable[Any]) -> tuple[bool, Any]:
        """Run ``coro``; ``(False, None)`` when :meth:`request_stop` cancelled it."""
        fut = asyncio.ensure_future(coro)
        self._interruptible = fut
        try:
            return True, await fut
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self.stop and fut.cancelled() and not (current and current.cancelling()):
                return False, None
            raise
        finally:
            self._interruptible = None
            if not fut.done():
                fut.cancel()


async def drive(item: RunningEpisode, engine: Engine) -> Trajectory | None:
    """Run ``item`` until it ends (returns its trajectory) or parks (returns None).

    A parked episode keeps its env worker; an episode that ends gives its worker back to the
    pool (or discards it after an env failure). Clear :attr:`RunningEpisode.stop` before
    continuing a parked episode (a stop requested before the call is honoured at once).
    """
    ep = item.episode
    item.segments += 1
    pool = engine.pool
    try:
        if not item.started:
            t_queue = time.monotonic()
            try:
                ran, worker = await item._interruptible_await(
                    pool.acquire(engine.config.acquire_timeout_s))
            except Exception as e:  # no env could be made or freed: abort this episode only
                traj = ep.result()  # marks it aborted
                traj.reason = f"env creation failed: {type(e).__name__}: {e}"[:500]
                return traj
            if not ran:
                return None
            ep.timings["queue_s"] += time.monotonic() - t_queue
            item.in_env = True
            await ep.begin(worker)
            item.in_env = False
        while not ep.done:
            if item.stop:
                return None
            ran, gen = await item._interruptible_await(ep.policy_turn())
            if not ran:
                return None
            if gen is None:
                break
            item.in_env = True
            await ep.env_turn(gen)
            item.in_env = False
    except BaseException:  # cancelled (shutdown)
        if ep.worker is not None:
            if item.in_env:  # in the middle of a reset or step: the env's state is unknown
                pool.discard(ep.worker, "episode cancelled during an env call")
            else:  # between env calls: the next reset starts it afresh
                pool.release(ep.worker)
            ep.worker = None
        raise
    worker = ep.worker
    if worker is not None:
        if ep.env_failed:
            pool.discard(worker, ep.traj.reason or "env failed")
        else:
            pool.release(worker)
    return ep.result()


def release(item: RunningEpisode, engine: Engine) -> None:
    """Give a parked episode's env worker back (the episode is dropped, e.g. at shutdown)."""
    worker = item.episode.worker
    if worker is not None and not item.done:
        engine.pool.release(worker)  # the next reset starts the env afresh
        item.episode.worker = None


__all__ = ["RunningEpisode", "drive", "release"]
