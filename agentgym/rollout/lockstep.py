"""The synchronous lock-step baseline, for the throughput benchmark.

Episodes run in waves of ``num_envs``. Within a wave every live episode generates its turn in one
batch (the policy sees all requests at once) and the wave waits for the slowest; then every live
episode steps its env, and the wave waits again. The next wave starts when the whole wave is done.
This is how synchronous RL frameworks roll out, and what :class:`~agentgym.rollout.Engine`
avoids. It uses the same episode phases, so trajectories are identical for a deterministic policy.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from .engine import Engine
from .episode import Episode, EpisodeRequest
from .trajectory import Trajectory


class LockstepEngine(Engine):
    """Same constructor and results as :class:`Engine`; episodes advance with barriers."""

    async def _run_wave(self, requests: Sequence[EpisodeRequest]) -> list[Trajectory]:
        workers = [await self.pool.acquire(self.config.acquire_timeout_s) for _ in requests]
        episodes = [
            Episode(r, self.policy, self.config, self.env_id, self._tracker) for r in requests
        ]
        try:
            await asyncio.gather(*(e.begin(w) for e, w in zip(episodes, workers, strict=True)))
            while live := [e for e in episodes if not e.done]:
                gens = await asyncio.gather(*(e.policy_turn() for e in live))  # barrier 1
                await asyncio.gather(  # barrier 2
                    *(e.env_turn(g) for e, g in zip(live, gens, strict=True) if g is not None)
                )
        finally:
            for e, w in zip(episodes, workers, strict=True):
                if e.done and not e.env_failed:
                    self.pool.release(w)
                else:
                    self.pool.discard(w, e.traj.reason or "wave cancelled")
        return [self._account(e.result()) for e in episodes]

    async def arun(
        self, requests: Sequence[EpisodeRequest], on_result: object = None
    ) -> list[Trajectory]:
        """Run ``requests`` wave by wave; results in request order."""
        t0, busy0 = time.monotonic(), self._tracker.total()
        req0 = self._tracker.total_requests()
        replaced0 = self.pool.stats.discarded
        out: list[Trajectory] = []
        try:
            for start in range(0, len(requests), self.pool.size):
                wave = await self._run_wave(requests[start : start + self.pool.size])
                for traj in wave:
                    if callable(on_result):
                        on_result(traj)
                out.extend(wave)
        finally:
            self.stats.wall_s += time.monotonic() - t0
            self.stats.policy_busy_s += self._tracker.total() - busy0
            self.stats.policy_request_s += self._tracker.total_requests() - req0
            self.stats.env_replacements += self.pool.stats.discarded - replaced0
        return out


__all__ = ["LockstepEngine"]
