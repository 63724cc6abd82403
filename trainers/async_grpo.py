"""The asynchronous GRPO trainer: rollouts run on a background thread while the trainer updates.

``async_rollouts: true`` selects it (:func:`agentgym.trainers.train` picks the class). It is
:class:`~agentgym.trainers.grpo.GRPOTrainer` with three hooks replaced:

- :meth:`collect` takes the next round from the :class:`~.async_rollouts.RolloutGenerator`
  instead of rolling out (the generator runs ahead, bounded by ``staleness_eta``);
- :meth:`update` runs the optimizer step (the weight push: the in-process ``hf`` policy shares
  the module and its version is bumped under the decode lock, so an episode in the middle of a
  turn continues with the new weights and every token keeps its version; a ``vllm`` policy
  reloads its folder, an OpenAI-compatible server its ``weight_sync_url``) and then lets the
  generator admit the next round;
- :meth:`evaluate` uses its own policy object over the same module, so held-out evaluation never
  disturbs the generator's batching.

Checkpoints also hold the generator's state (untrained rounds, APRIL's carried groups, finished
trajectories); see :mod:`.async_rollouts`. Each trained round is logged to
``<output_dir>/async_batches.jsonl`` (groups, versions), truncated on resume like the metrics.

``staleness_eta: 0`` reproduces the synchronous trainer step for step (same tasks, seeds,
weights). Dynamic sampling drops uninformative groups without refilling (the batch shrinks).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from agentgym import ConfigError
from agentgym.rollout import Trajectory

from .async_rollouts import RolloutGenerator
from .async_rounds import Round
from .curation import curation
from .data import shard
from .grpo import GRPOTrainer
from .rollouts import RolloutResult, Rollouts
from .state import RunParts

BATCH_LOG = "async_batches.jsonl"


class _CheckpointedSampler:
    """The task sampler as the checkpoint sees it: the cursor plus the generator's state."""

    def __init__(self, trainer: AsyncGRPOTrainer) -> None:
        self.trainer = trainer

    def state_dict(self) -> dict[str, Any]:
        """``{"sampler": ..., "async": ...}`` taken atomically on the generator's loop."""
        t = self.trainer
        gen = t.generator
        if gen is None:
            with t.sampler_lock:
                return {"sampler": t.sampler.state_dict(), "async": t.restored}

        def cursor() -> Any:
            with t.sampler_lock:
                return t.sampler.state_dict()

        state, sampler = gen.snapshot(cursor)
        return {"sampler": sampler, "async": state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore; a synchronous run's checkpoint (no generator state) loads too."""
        t = self.trainer
        nested = "async" in state and "sampler" in state
        t.sampler.load_state_dict(state["sampler"] if nested else state)
        t.restored = state["async"] if nested else None


class AsyncGRPOTrainer(GRPOTrainer):
    """GRPO-family trainer whose rollouts run concurrently with its updates."""

    asynchronous = True
    """Marks the class for :meth:`GRPOTrainer.setup`'s check of ``async_rollouts``."""

    def setup(self) -> None:
        """Everything of :meth:`GRPOTrainer.setup`, plus the evaluation policy."""
        super().setup()
        cfg = self.cfg
        self.sampler_lock = threading.Lock()
        self.generator: RolloutGenerator | None = None
        self.restored: dict[str, Any] | None = None
        self.eval_rollouts: Rollouts | None = None
        self.eval_policy: Any = None
        self.last_round: Round | None = None
        if self.sync is None:  # in-process hf (the shared module, or the FSDP replica)
            self.eval_policy = self.shared_policy(self.policy.model)
            self.eval_rollouts = Rollouts(cfg, self.eval_policy, self.max_turns)
        self.batch_log = Path(cfg.output_dir) / BATCH_LOG

    # -- the generator -------------------------------------------------------------------------

    def _local_batch(self) -> int:
        d = self.dist
        return len(shard([str(i) for i in range(self.cfg.tasks_per_step)], d.rank, d.world_size))

    def _take_tasks(self, n: int) -> list[str]:
        d = self.dist
        return shard(self.sampler.take(n * d.world_size), d.rank, d.world_size)[:n]

    def start_generator(self) -> RolloutGenerator:
        """Build and start the generator (resumed from the checkpoint's state when there is
        one); called by the first :meth:`collect`."""
        cfg = self.cfg
        curated = curation(self.sampler)  # DARS
        sizes = curated.group_sizes if curated is not None else None
        gen = RolloutGenerator(
            self.rollouts.train_engine, batch_size=self._local_batch(), eta=cfg.staleness_eta,
            spare=cfg.partial_rollouts, seed=cfg.seed, group_size=cfg.group_size,
            total_rounds=cfg.steps, take_tasks=self._take_tasks, group_sizes=sizes,
            lock=self.sampler_lock, version=self.state.step)
        if self.restored is not None:
            gen.restore(self.restored)
        if self.dist.is_main:
            self._truncate_batch_log(self.state.step)
        gen.start()
        self.generator = gen
        return gen

    def _truncate_batch_log(self, step: int) -> None:
        if not self.batch_log.exists():
            return
        rows = [r for r in self.batch_log.read_text().splitlines()
                if r.strip() and json.loads(r)["step"] <= step]
        self.batch_log.write_text("".join(r + "\n" for r in rows))

    # -- GRPOTrainer hooks ---------------------------------------------------------------------

    def collect(self) -> tuple[list[list[Trajectory]], RolloutResult]:
        """The next round from the generator (waits only while it is not complete)."""
        cfg = self.cfg
        gen = self.generator or self.start_generator()
        timeout = cfg.episode_timeout_s * (cfg.staleness_eta + 2) + cfg.env_timeout_s + 60
        rnd, result = gen.take(self.state.step, timeout)
        self.last_round = rnd
        groups = result.groups
        curated = curation(self.sampler)
        if curated is not None:  # DART and the posteriors, under the generator's sampler lock
            with self.sampler_lock:
                groups = result.groups = curated.curate(groups)
        if cfg.dynamic_sampling:
            kept = self._informative(groups)
            result.dropped_groups = len(groups) - len(kept)
            groups = kept
        self.state.round = rnd.index + 1
        self._log_round(rnd, groups)
        return groups, result

    def _log_round(self, rnd: Round, groups: list[list[Trajectory]]) -> None:
        if not self.dist.is_main:
            return
        versions = [v for g in groups for t in g for v in t.versions if v >= 0]
        row = {"step": self.state.step + 1, "round": rnd.index,
               "groups": [g[0].group_id for g in groups if g],
               "started_version": rnd.version, "trained_version": self.state.step,
               "min_token_version": min(versions, default=-1)}
        with self.batch_log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")

    def update(self, batch: Any, **kwargs: Any) -> dict[str, float]:
        """The optimizer step and weight push, then the generator may start the next round."""
        upd = super().update(batch, **kwargs)
        if self.generator is not None:
            self.generator.advance(self.state.step + 1)
        return upd

    def step(self) -> dict[str, float]:
        """One step of :class:`GRPOTrainer`, plus the generator's figures."""
        metrics = super().step()
        gen, rnd = self.generator, self.last_round
        if gen is not None and rnd is not None:
            metrics["staleness"] = float(self.state.step - 1 - rnd.version)
            metrics["generator_idle_share"] = gen.idle_share()
            metrics["parked_episodes"] = float(gen.parked)
        return metrics

    def evaluate(self) -> dict[str, float]:
        """Held-out success with the current weights, on the evaluation policy."""
        if self.eval_rollouts is None:
            return super().evaluate()
        self.eval_policy.version = self.policy.version
        result = {**self.eval_rollouts.evaluate(self.eval_ids, self.dist),
                  **self.extra_eval_metrics()}
        self.metrics.log(self.state.step, "eval", result)
        self.last_eval = result
        return result

    def parts(self) -> RunParts:
        """The checkpointed parts; the sampler entry also carries the generator's state."""
        parts = super().parts()
        parts.sampler = _CheckpointedSampler(self)
        return parts

    def close(self) -> None:
        """Stop the generator first, then release everything else."""
        gen = getattr(self, "generator", None)
        if gen is not None:
            gen.stop()
        for closer in (getattr(self, "eval_rollouts", None), getattr(self, "eval_policy", None)):
            if closer is not None:
                closer.close()
        super().close()


def async_trainer(cls: type[GRPOTrainer]) -> type[GRPOTrainer]:
    """The asynchronous variant of trainer class ``cls`` (a GRPO-family trainer)."""
    if issubclass(cls, AsyncGRPOTrainer):
        return cls
    if cls is GRPOTrainer:
        return AsyncGRPOTrainer
    if not issubclass(cls, GRPOTrainer) or cls.step is not GRPOTrainer.step or (
            cls.collect is not GRPOTrainer.collect):
        raise ConfigError(f"async_rollouts supports GRPO-family trainers that keep "
                          f"GRPOTrainer's step and collect; {cls.__name__} does not")
    return type(f"Async{cls.__name__}", (AsyncGRPOTrainer, cls), {})


__all__ = ["AsyncGRPOTrainer", "async_trainer"]
