"""The asynchronous source: rollouts run on a background thread while the learner updates.

``async_rollouts: true`` selects it for the learning phase. :meth:`AsyncSource.collect` takes
the next round from the :class:`~..async_rollouts.RolloutGenerator` (it runs ahead, bounded by
``staleness_eta``; APRIL's ``partial_rollouts`` start spare groups) and
:meth:`AsyncSource.after_update` lets it admit the next round once the weights moved: the
in-process ``hf`` policy shares the module and its version is bumped under the decode lock, so an
episode in the middle of a turn continues with the new weights and every token keeps its
version; a ``vllm`` policy reloads its folder, an OpenAI-compatible server its
``weight_sync_url``. Held-out evaluation runs on its own policy object over the same module, so
it never disturbs the generator's batching.

Checkpoints also hold the generator's state (untrained rounds, APRIL's carried groups, finished
trajectories): :meth:`AsyncSource.checkpointed_sampler`. Each trained round is logged to
``<output_dir>/async_batches.jsonl`` (groups, versions), truncated on resume like the metrics.
``staleness_eta: 0`` reproduces the synchronous trainer step for step (same tasks, seeds,
weights). Dynamic sampling drops uninformative groups without refilling (the batch shrinks).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym.rollout import Trajectory

from ..async_rollouts import RolloutGenerator
from ..async_rounds import Round
from ..config import TrainConfig
from ..curation import curation
from ..data import shard
from ..distributed import DistInfo
from ..parts import Collected
from ..rollouts import Rollouts
from ..state import TrainState
from . import SourceBase
from .engine import EngineSource, informative

BATCH_LOG = "async_batches.jsonl"


class CheckpointedSampler:
    """The task sampler as the checkpoint sees it: the cursor plus the generator's state."""

    def __init__(self, source: AsyncSource) -> None:
        self.source = source

    def state_dict(self) -> dict[str, Any]:
        """``{"sampler": ..., "async": ...}`` taken atomically on the generator's loop."""
        s = self.source
        gen = s.generator
        if gen is None:
            with s.lock:
                return {"sampler": s.sampler.state_dict(), "async": s.restored}

        def cursor() -> Any:
            with s.lock:
                return s.sampler.state_dict()

        state, sampler = gen.snapshot(cursor)
        return {"sampler": sampler, "async": state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore; a synchronous run's checkpoint (no generator state) loads too."""
        s = self.source
        nested = "async" in state and "sampler" in state
        s.sampler.load_state_dict(state["sampler"] if nested else state)
        s.restored = state["async"] if nested else None


class AsyncSource(SourceBase):
    """Rounds of groups from a generator over the engine source's train engine."""

    def __init__(self, cfg: TrainConfig, engine: EngineSource, dist: DistInfo, *,
                 eval_policy: Any = None, max_turns: int = 1, is_main: bool = True) -> None:
        """``eval_policy``: a second policy over the trained module for held-out evaluation
        (None: evaluate through the engine source, e.g. with an out-of-process policy)."""
        self.cfg, self.engine, self.dist = cfg, engine, dist
        self.sampler = engine.sampler
        self.lock = threading.Lock()
        self.generator: RolloutGenerator | None = None
        self.restored: dict[str, Any] | None = None
        self.last_round: Round | None = None
        self.eval_policy = eval_policy
        self.eval_rollouts = (Rollouts(cfg, eval_policy, max_turns)
                              if eval_policy is not None else None)
        self.batch_log = Path(cfg.output_dir) / BATCH_LOG
        self.is_main = is_main

    def _local_batch(self) -> int:
        d = self.dist
        return len(shard([str(i) for i in range(self.cfg.tasks_per_step)], d.rank, d.world_size))

    def _take_tasks(self, n: int) -> list[str]:
        d = self.dist
        return shard(self.sampler.take(n * d.world_size), d.rank, d.world_size)[:n]

    def start_generator(self, version: int) -> RolloutGenerator:
        """Build and start the generator (resumed from the checkpoint's state when there is
        one); called by the first :meth:`collect`."""
        cfg = self.cfg
        curated = curation(self.sampler)  # DARS
        sizes: Callable[..., Any] | None = curated.group_sizes if curated is not None else None
        gen = RolloutGenerator(
            self.engine.rollouts.train_engine, batch_size=self._local_batch(),
            eta=cfg.staleness_eta, spare=cfg.partial_rollouts, seed=cfg.seed,
            group_size=cfg.group_size, total_rounds=cfg.steps, take_tasks=self._take_tasks,
            group_sizes=sizes, lock=self.lock, version=version)
        if self.restored is not None:
            gen.restore(self.restored)
        if self.is_main:
            self._truncate_batch_log(version)
        gen.start()
        self.generator = gen
        return gen

    def _truncate_batch_log(self, step: int) -> None:
        if not self.batch_log.exists():
            return
        rows = [r for r in self.batch_log.read_text().splitlines()
                if r.strip() and json.loads(r)["step"] <= step]
        self.batch_log.write_text("".join(r + "\n" for r in rows))

    def collect(self, state: TrainState) -> Collected:
        """The next round from the generator (waits only while it is not complete)."""
        cfg = self.cfg
        gen = self.generator or self.start_generator(state.step)
        timeout = cfg.episode_timeout_s * (cfg.staleness_eta + 2) + cfg.env_timeout_s + 60
        rnd, result = gen.take(state.step, timeout)
        self.last_round = rnd
        groups = result.groups
        curated = curation(self.sampler)
        if curated is not None:  # DART and the posteriors, under the generator's sampler lock
            with self.lock:
                groups = result.groups = curated.curate(groups)
        if cfg.dynamic_sampling:
            kept = informative(groups)
            result.dropped_groups = len(groups) - len(kept)
            groups = kept
        state.round = rnd.index + 1
        self._log_round(rnd, groups, state.step)
        return Collected(groups=groups, result=result)

    def _log_round(self, rnd: Round, groups: list[list[Trajectory]], step: int) -> None:
        if not self.is_main:
            return
        versions = [v for g in groups for t in g for v in t.versions if v >= 0]
        row = {"step": step + 1, "round": rnd.index,
               "groups": [g[0].group_id for g in groups if g],
               "started_version": rnd.version, "trained_version": step,
               "min_token_version": min(versions, default=-1)}
        with self.batch_log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")

    def after_update(self, version: int) -> None:
        """The weights moved: the generator may start the round of ``version``."""
        if self.generator is not None:
            self.generator.advance(version)

    def step_metrics(self, state: TrainState) -> dict[str, float]:
        """Staleness of the round just trained, the generator's idle share, parked episodes."""
        gen, rnd = self.generator, self.last_round
        if gen is None or rnd is None:
            return {}
        return {"staleness": float(state.step - 1 - rnd.version),
                "generator_idle_share": gen.idle_share(), "parked_episodes": float(gen.parked)}

    def evaluate(self, task_ids: list[str], version: int) -> dict[str, float]:
        """Held-out success with the current weights, on the evaluation policy."""
        if self.eval_rollouts is None:
            return self.engine.evaluate(task_ids)
        self.eval_policy.version = version
        result: dict[str, float] = self.eval_rollouts.evaluate(task_ids, self.dist)
        return result

    def checkpointed_sampler(self) -> CheckpointedSampler:
        """The sampler entry of a checkpoint (it carries the generator's state too)."""
        return CheckpointedSampler(self)

    def close(self) -> None:
        """Stop the generator, then close the evaluation engines and policy."""
        if self.generator is not None:
            self.generator.stop()
        if self.eval_rollouts is not None:
            self.eval_rollouts.close()
        if self.eval_policy is not None:
            self.eval_policy.close()


__all__ = ["BATCH_LOG", "AsyncSource", "CheckpointedSampler"]
