"""The trainer: a phase schedule of rollout sources, objectives and one learner.

One step, the same short function for every algorithm (:meth:`GRPOTrainer.step`)::

    collected = source.collect(state)            # engine / async engine / gateway / experts
    scored = objective.score(collected)          # advantages (or targets) -> a padded batch
    update = learner.update(scored.batch, ...)   # micro-batches, optimizer, weight push
    source.after_update(state.step + 1)          # the asynchronous source admits a round

The schedule (:mod:`.schedule`: ``phases: [{bc: 4}, {grpo: 8}]``, or ``algorithm: bc_grpo``
with ``bc_steps``) says which phase runs each step; each phase is a source and an objective
(:mod:`.sources`, :mod:`.scoring`), the learner (:mod:`.learner`) is shared by all. Around the
steps: evaluation on the held-out split every ``eval_every`` steps (and after a phase that is
not the last, so BC alone is reported beside BC + RL), its hooks (self-play win rates and Elo,
SOP), checkpoints.

>>> from agentgym.trainers import GRPOTrainer, load_config        # doctest: +SKIP
>>> GRPOTrainer(load_config("configs/grpo_arith_cpu.yaml")).train()  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from agentgym.rollout import Trajectory

from .assembly import TrainerAssembly
from .checkpoint import interrupted
from .config import TrainConfig
from .distributed import cleanup
from .parts import Closeable
from .progress import RunProgress
from .rollouts import RolloutResult
from .schedule import BC, Phase, phase_at
from .scoring.group import GroupObjective
from .sources.engine import informative
from .state import RunParts, TrainResult, final_report, load_checkpoint, save_checkpoint

logger = logging.getLogger(__name__)


class GRPOTrainer(TrainerAssembly):
    """The trainer of every algorithm: its phases (BC, the GRPO family, RLOO, semi-online RL)
    come from the config's schedule, its rollout source from ``rollout_source`` and
    ``async_rollouts``; its parts are built by :meth:`TrainerAssembly.setup`."""

    @property
    def rollouts(self) -> Any:
        """The train and eval engines of the engine source (a test may replace them)."""
        assert self.engine is not None, "setup() builds the rollouts"
        return self.engine.rollouts

    @rollouts.setter
    def rollouts(self, value: Any) -> None:
        assert self.engine is not None, "setup() builds the rollouts"
        self.engine.rollouts = value

    # -- one step ------------------------------------------------------------------------------

    def collect(self) -> tuple[list[list[Trajectory]], RolloutResult]:
        """This rank's groups for one RL step (the RL phase's source)."""
        collected = self.phase_parts["rl"][0].collect(self.state)
        return collected.groups, collected.result

    @staticmethod
    def _informative(groups: list[list[Trajectory]]) -> list[list[Trajectory]]:
        return informative(groups)

    def prepare(self, groups: list[list[Trajectory]]) -> tuple[Any, list[Trajectory]]:
        """Rewards -> advantages -> a padded :class:`TrainBatch` (group by group)."""
        objective = self.phase_parts["rl"][1]
        assert isinstance(objective, GroupObjective)
        return objective.prepare(groups)

    def _enter(self) -> Phase:
        """The phase of this step; entering an RL phase after BC resets the optimizer."""
        phase = phase_at(self.schedule, self.state.step)
        after_bc = phase.first_step > 0 and phase_at(self.schedule, phase.first_step - 1).kind == BC
        if (phase.kind != BC and after_bc and self.state.step == phase.first_step
                and self.cfg.bc_optimizer == "reset"):
            self.learner.reset_optimizer()  # RL starts from fresh moments, not BC's momentum
        return phase

    def step(self) -> dict[str, float]:
        """Run one training step of the scheduled phase; returns its metrics."""
        phase = self._enter()
        source, objective = self.phase_parts[phase.kind]
        t0 = time.perf_counter()
        self.model.eval()
        collected = source.collect(self.state)
        scored = objective.score(collected)
        t1 = time.perf_counter()
        upd = (self.update(scored.batch, trained=scored.trained, **scored.options)
               if scored.update else {})
        source.after_update(self.state.step + 1)
        t2 = time.perf_counter()
        self.state.step += 1
        self.state.last_trajectories = scored.trajectories
        head: dict[str, float] = {}
        if collected.result is not None:
            self.state.env_steps += int(collected.result.extra.get("env_steps", 0))
            head = {"env_steps": float(self.state.env_steps)}
        metrics = {**head, **objective.metrics(collected, scored, upd, (t0, t1, t2)),
                   **source.step_metrics(self.state)}
        self._after(phase)
        return metrics

    def _after(self, phase: Phase) -> None:
        """At the end of a phase that is not the last: evaluate (BC alone, beside BC + RL)."""
        cfg, step = self.cfg, self.state.step
        at_eval = cfg.eval_every and (step % cfg.eval_every == 0 or step == cfg.steps)
        if step == phase.end and phase is not self.schedule[-1] and cfg.eval_every \
                and not at_eval:
            self.evaluate()

    def bc_step(self) -> dict[str, float]:
        """One behaviour-cloning step on ``bc_batch_size`` expert episodes (the step counter
        does not move; :meth:`step` runs it as scheduled)."""
        source, objective = self.phase_parts[BC]
        collected = source.collect(self.state)
        scored = objective.score(collected)
        upd = self.update(scored.batch, trained=scored.trained, **scored.options)
        return objective.metrics(collected, scored, upd, (0.0, 0.0, 0.0))

    def update(self, batch: Any, *, trained: bool = True, lr: float | None = None,
               loss_fn: Any = None, cfg: TrainConfig | None = None) -> dict[str, float]:
        """The learner's optimizer step(s) and weight push (:meth:`Learner.update`)."""
        return self.learner.update(batch, trained=trained, lr=lr, loss_fn=loss_fn, cfg=cfg)

    def extra_eval_metrics(self) -> dict[str, float]:
        """Metrics the eval hooks add to each held-out evaluation row (self-play win rates
        and Elo against ``eval_opponents``; SOP, TSR and PG with ``sop_eval``)."""
        out: dict[str, float] = {}
        for hook in self.eval_hooks:
            out.update(hook.evaluate(self.eval_ids))
        return out

    def evaluate(self) -> dict[str, float]:
        """Held-out success (greedy and sampled) with the current weights (the progress bar
        says an evaluation runs)."""
        self.model.eval()
        bar = self.bar
        with bar.evaluating(self.eval_total) if bar is not None else contextlib.nullcontext():
            if self.async_source is not None:
                online = self.async_source.evaluate(self.eval_ids,
                                                    self.learner.version(self.state.step))
            else:
                assert self.engine is not None
                online = self.engine.evaluate(self.eval_ids)
            result = {**online, **self.extra_eval_metrics()}
        assert self.metrics is not None
        self.metrics.log(self.state.step, "eval", result)
        self.last_eval = result
        return result

    # -- the run -------------------------------------------------------------------------------

    def train(self) -> TrainResult:
        """Run (or resume) the whole training loop; returns a :class:`TrainResult`."""
        cfg = self.cfg
        self.setup()
        assert self.dist is not None and self.metrics is not None
        try:
            resumed = cfg.resume and load_checkpoint(cfg, self.dist, self.state, self.parts())
            if resumed:
                logger.info("resumed at step %d", self.state.step)
            with RunProgress(cfg.steps, enabled=cfg.progress and self.dist.is_main) as bar:
                bar.advance_to(self.state.step)
                self.bar = bar
                if not resumed and cfg.eval_at_start:
                    self.baseline = self.evaluate()
                while self.state.step < cfg.steps:
                    metrics = self.step()
                    step = self.state.step
                    if self.selfplay is not None:
                        self.selfplay.after_step(step)
                    self.metrics.log(step, "train", metrics)
                    last = step == cfg.steps
                    if cfg.eval_every and (step % cfg.eval_every == 0 or last):
                        self.evaluate()
                    if last or (cfg.save_every and step % cfg.save_every == 0):
                        save_checkpoint(cfg, self.dist, self.state, self.parts())
                    bar.update(step, metrics, self.last_eval)
            return final_report(cfg, self.dist, self.state, self.parts(), self.last_eval)
        except KeyboardInterrupt:  # Ctrl-C: no half checkpoint; say how to go on
            if self.dist.is_main:
                logger.warning(interrupted(cfg.output_dir, self.state.step))
            raise
        finally:
            self.close()

    def parts(self) -> RunParts:
        """The live objects a checkpoint saves and restores (with the asynchronous source,
        the sampler entry also carries the generator's state)."""
        sampler = (self.async_source.checkpointed_sampler() if self.async_source is not None
                   else self.sampler)
        assert self.metrics is not None
        return RunParts(self.model, self.optimizer, self.scheduler, sampler, self.policy,
                        self.tokenizer, self.metrics)

    def close(self) -> None:
        """Release the sources, engines, the policy, writers and the process group."""
        closers: list[Closeable | None] = [self.async_source, self.selfplay, self.engine,
                                           self.metrics, self.policy]
        for closer in closers:
            if closer is not None:
                closer.close()
        if self.dist is not None:
            cleanup(self.dist)


Trainer = GRPOTrainer
"""The trainer of every algorithm (the name GRPOTrainer is kept for earlier code)."""

__all__ = ["GRPOTrainer", "TrainResult", "Trainer"]
