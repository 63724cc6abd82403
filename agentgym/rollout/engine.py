"""The asynchronous rollout engine: many episodes in flight, no lock-step barrier.

Each episode takes a worker from the env pool and alternates policy and env turns on its own;
it proceeds as soon as its own policy turn returns. Up to ``max_concurrency`` episodes run at
once (default: the pool size). A policy that batches (``hf``, ``vllm``) sees the concurrent
requests together. Results come back in request order (:meth:`Engine.arun`), as they finish
(:meth:`Engine.astream`), or as complete GRPO groups (:meth:`Engine.astream_groups`).

>>> engine = Engine("textgames/guess-number-v0", "hf:smollm2-135m", num_envs=8)  # doctest: +SKIP
>>> groups = engine.generate_groups(["guess-050", "guess-075"], group_size=4)    # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any

from ..errors import ConfigError
from ..policies.base import Policy, derive_seed
from ..policies.loader import load_policy
from .episode import Episode, EpisodeRequest, RolloutConfig
from .pool import EnvPool
from .stats import BusyTracker, EngineStats
from .trajectory import Trajectory
from .workers import WorkerFactory, local_worker_factory

logger = logging.getLogger(__name__)

ResultCallback = Callable[[Trajectory], Any]


def group_requests(
    task_ids: Sequence[str], group_size: int, *, seed: int = 0, round: int = 0
) -> list[EpisodeRequest]:
    """``group_size`` requests per task, one group id per task and round."""
    return [
        EpisodeRequest(task_id=t, sample_idx=i, group_id=f"r{round}:{t}",
                       seed=derive_seed(seed, round, t, i))
        for t in task_ids
        for i in range(group_size)
    ]


class Engine:
    """Runs episodes of one env id with one policy over a reusable pool of env workers."""

    def __init__(
        self,
        env_id: str,
        policy: Policy | str,
        *,
        config: RolloutConfig | None = None,
        num_envs: int = 16,
        max_concurrency: int | None = None,
        env_kwargs: dict[str, Any] | None = None,
        backend: str = "asyncio",
        worker_factory: WorkerFactory | None = None,
    ) -> None:
        self.env_id = env_id
        self.policy = load_policy(policy)
        self.config = config or RolloutConfig()
        self.max_concurrency = max_concurrency or num_envs
        self.backend = backend
        if worker_factory is None:
            worker_factory = _factory_for(backend, env_id,
                                          _with_turn_limit(env_kwargs, self.config.max_turns))
        self.pool = EnvPool(worker_factory, num_envs)
        self.stats = EngineStats()
        self._tracker = BusyTracker()
        self._round = 0
        self._runner: asyncio.Runner | None = None
        """The event loop of the sync twins, kept from call to call: env workers live on, and a
        browser, a desktop client or a connection they hold is bound to the loop that made it."""

    def _run_sync(self, coro: Any) -> Any:
        """Run ``coro`` on the engine's own loop (made on first use, closed by :meth:`close`)."""
        if self._runner is None:
            self._runner = asyncio.Runner()
        return self._runner.run(coro)

    # -- one episode -------------------------------------------------------------------------

    async def _run_one(self, request: EpisodeRequest) -> Trajectory:
        t_queue = time.monotonic()
        try:
            worker = await self.pool.acquire(self.config.acquire_timeout_s)
        except Exception as e:  # no env could be made or freed: abort this episode only
            episode = Episode(request, self.policy, self.config, self.env_id, self._tracker)
            episode._fail(e, "env creation", env=False)
            return self._account(episode.result())
        episode = Episode(request, self.policy, self.config, self.env_id, self._tracker)
        episode.timings["queue_s"] = time.monotonic() - t_queue
        healthy = False
        try:
            await episode.run(worker)
            healthy = not episode.env_failed
        finally:  # cancelled mid-step: the env's state is unknown, replace it
            if healthy:
                self.pool.release(worker)
            else:
                self.pool.discard(worker, episode.traj.reason or "episode cancelled")
        return self._account(episode.result())

    def _account(self, traj: Trajectory) -> Trajectory:
        s = self.stats
        s.trajectories += 1
        s.aborted += int(traj.aborted)
        s.truncated += int(traj.truncated)
        s.generated_tokens += traj.num_generated_tokens
        s.turns += traj.turns
        if traj.aborted:
            logger.warning("episode %s/%s aborted: %s", traj.task_id, traj.sample_idx, traj.reason)
        return traj

    # -- many episodes -----------------------------------------------------------------------

    async def _indexed(
        self, requests: Iterable[EpisodeRequest], on_result: ResultCallback | None
    ) -> AsyncIterator[tuple[int, Trajectory]]:
        pending = enumerate(requests)
        out: asyncio.Queue[tuple[int, Trajectory] | None] = asyncio.Queue()
        t0, busy0 = time.monotonic(), self._tracker.total()
        req0 = self._tracker.total_requests()
        replaced0 = self.pool.stats.discarded

        async def lane() -> None:
            for i, request in pending:  # lanes share one iterator: each request runs once
                traj = await self._run_one(request)
                if on_result is not None:
                    on_result(traj)
                await out.put((i, traj))

        lanes = [asyncio.create_task(lane()) for _ in range(self.max_concurrency)]
        watcher = asyncio.create_task(_signal_when_done(lanes, out))
        try:
            while (item := await out.get()) is not None:
                yield item
            for task in lanes:  # re-raise an unexpected error from a lane
                task.result()
        finally:
            for task in [*lanes, watcher]:
                task.cancel()
            await asyncio.gather(*lanes, watcher, return_exceptions=True)
            self.stats.wall_s += time.monotonic() - t0
            self.stats.policy_busy_s += self._tracker.total() - busy0
            self.stats.policy_request_s += self._tracker.total_requests() - req0
            self.stats.env_replacements += self.pool.stats.discarded - replaced0

    async def astream(
        self, requests: Iterable[EpisodeRequest], on_result: ResultCallback | None = None
    ) -> AsyncIterator[Trajectory]:
        """Run ``requests`` concurrently and yield each trajectory as soon as it finishes.

        ``on_result`` is called with each trajectory first (the store's append, say).
        """
        async for _, traj in self._indexed(requests, on_result):
            yield traj

    async def arun(
        self, requests: Sequence[EpisodeRequest], on_result: ResultCallback | None = None
    ) -> list[Trajectory]:
        """Run ``requests`` and return their trajectories in request order."""
        results: list[Trajectory | None] = [None] * len(requests)
        async for i, traj in self._indexed(requests, on_result):
            results[i] = traj
        return [r for r in results if r is not None]

    def run(self, requests: Sequence[EpisodeRequest], on_result: ResultCallback | None = None) -> (
        list[Trajectory]
    ):
        """Sync twin of :meth:`arun` (not for use inside a running event loop)."""
        return self._run_sync(self._with_policy_cleanup(self.arun(requests, on_result)))

    # -- groups for GRPO ---------------------------------------------------------------------

    def _next_round(self) -> int:
        self._round += 1
        return self._round - 1

    async def astream_groups(
        self, task_ids: Sequence[str], group_size: int, *, seed: int = 0
    ) -> AsyncIterator[list[Trajectory]]:
        """Yield each group of ``group_size`` trajectories (sorted by sample) once complete."""
        requests = group_requests(task_ids, group_size, seed=seed, round=self._next_round())
        partial: dict[str, list[Trajectory]] = {}
        async for traj in self.astream(requests):
            group = partial.setdefault(traj.group_id, [])
            group.append(traj)
            if len(group) == group_size:
                yield sorted(partial.pop(traj.group_id), key=lambda t: t.sample_idx)

    async def agenerate_groups(
        self, task_ids: Sequence[str], group_size: int, *, seed: int = 0
    ) -> list[list[Trajectory]]:
        """One group of ``group_size`` rollouts per task, in task order (trainer entry point)."""
        groups = [g async for g in self.astream_groups(task_ids, group_size, seed=seed)]
        order = {f"r{self._round - 1}:{t}": i for i, t in enumerate(task_ids)}
        return sorted(groups, key=lambda g: order.get(g[0].group_id, 0))

    def generate_groups(self, task_ids: Sequence[str], group_size: int, *, seed: int = 0) -> (
        list[list[Trajectory]]
    ):
        """Sync twin of :meth:`agenerate_groups`."""
        coro = self.agenerate_groups(task_ids, group_size, seed=seed)
        return self._run_sync(self._with_policy_cleanup(coro))

    async def agenerate_tree_groups(
        self, task_ids: Sequence[str], group_size: int, *, width: int = 2,
        branch_turns: Sequence[int] = (1,), seed: int = 0, round: int | None = None,
    ) -> list[list[Trajectory]]:
        """One tree group per task (:mod:`agentgym.rollout.tree`), in task order: each task's
        ``group_size`` leaves grown by forking episodes after ``branch_turns``."""
        from .tree import run_tree

        r = self._next_round() if round is None else round
        return list(await asyncio.gather(*(
            run_tree(self, t, group_size=group_size, width=width,
                     branch_turns=tuple(branch_turns), seed=seed, round=r) for t in task_ids)))

    def generate_tree_groups(self, task_ids: Sequence[str], group_size: int, *, width: int = 2,
                             branch_turns: Sequence[int] = (1,), seed: int = 0,
                             round: int | None = None) -> list[list[Trajectory]]:
        """Sync twin of :meth:`agenerate_tree_groups`."""
        coro = self.agenerate_tree_groups(task_ids, group_size, width=width,
                                          branch_turns=branch_turns, seed=seed, round=round)
        return self._run_sync(self._with_policy_cleanup(coro))  # type: ignore[no-any-return]

    # -- lifecycle ---------------------------------------------------------------------------

    async def _with_policy_cleanup(self, coro: Any) -> Any:
        try:
            return await coro
        finally:
            await self.policy.aclose()

    async def aclose(self) -> None:
        """Close every env worker and release the policy's loop-bound resources."""
        await self.pool.aclose()
        await self.policy.aclose()

    def close(self) -> None:
        """Sync twin of :meth:`aclose` (then closes the loop of the sync twins)."""
        try:
            self._run_sync(self.aclose())
        finally:
            if self._runner is not None:
                runner, self._runner = self._runner, None
                runner.close()


async def _signal_when_done(lanes: list[asyncio.Task[None]], out: asyncio.Queue[Any]) -> None:
    await asyncio.gather(*lanes, return_exceptions=True)
    await out.put(None)


def _with_turn_limit(env_kwargs: dict[str, Any] | None, max_turns: int | None) -> dict[str, Any]:
    """``env_kwargs`` with the run's turn limit for :func:`agentgym.make`, which enforces it.

    A custom ``worker_factory`` makes its envs itself (with the limit it wants).
    """
    kwargs = dict(env_kwargs or {})
    if max_turns is None:
        return kwargs
    given = kwargs.setdefault("max_turns", max_turns)
    if given != max_turns:
        raise ConfigError(f"two turn limits: env_kwargs max_turns={given!r} and "
                          f"RolloutConfig.max_turns={max_turns!r}")
    return kwargs


def _factory_for(backend: str, env_id: str, env_kwargs: dict[str, Any]) -> WorkerFactory:
    if backend == "asyncio":
        return local_worker_factory(env_id, **env_kwargs)
    if backend == "ray":
        from .ray_backend import ray_worker_factory

        return ray_worker_factory(env_id, **env_kwargs)
    raise ValueError(f"unknown backend {backend!r}; choose 'asyncio' or 'ray'")


__all__ = ["Engine", "group_requests"]
