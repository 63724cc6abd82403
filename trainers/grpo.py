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
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

import agentgym
from agentgym import ConfigError, get_registry
from agentgym.rollout import Trajectory

from . import fsdp
from .checkpoint import interrupted, prepare_run_dir
from .config import TrainConfig, save_config
from .curation import make_sampler
from .data import shard
from .distributed import DistInfo, cleanup, init_distributed, unwrap, wrap_ddp
from .learner import Learner
from .losses import AGGREGATIONS
from .modeling import autocast_dtype, build_model, frozen_copy, pad_id, pick_device
from .parts import (
    Closeable,
    EvalHook,
    HasImageProcessor,
    HasTaskSet,
    HasTokenizer,
    PhaseObjective,
    RolloutSource,
)
from .progress import RunProgress
from .rollouts import RolloutResult, Rollouts
from .schedule import BC, EXPERT_ALGORITHMS, SEMI_ONLINE, Phase, build_schedule, phase_at
from .scoring.group import GroupObjective
from .sources.engine import EngineSource, informative
from .state import RunParts, TrainResult, TrainState, final_report, load_checkpoint, save_checkpoint
from .tracking import MetricsLogger
from .update import make_optimizer, make_scheduler

logger = logging.getLogger(__name__)


class GRPOTrainer:
    """The trainer of every algorithm: its phases (BC, the GRPO family, RLOO, semi-online RL)
    come from the config's schedule, its rollout source from ``rollout_source`` and
    ``async_rollouts``."""

    def __init__(self, cfg: TrainConfig, *, model: Any = None, tokenizer: Any = None) -> None:
        self.cfg = cfg
        self._given = (model, tokenizer)
        self.state = TrainState()
        self.baseline: dict[str, float] = {}
        self.last_eval: dict[str, float] = {}
        self.schedule: list[Phase] = build_schedule(cfg)
        self.bar: RunProgress | None = None
        self.dist: DistInfo | None = None  # type: ignore[assignment]
        self.selfplay: Any = None
        self.engine: EngineSource | None = None  # type: ignore[assignment]
        self.async_source: Any = None
        self.metrics: MetricsLogger | None = None  # type: ignore[assignment]
        self.policy: Any = None
        self.eval_hooks: list[EvalHook] = []
        self.phase_parts: dict[str, tuple[RolloutSource, PhaseObjective]] = {}

    # -- setup ---------------------------------------------------------------------------------

    def _check_schedule(self) -> None:
        cfg = self.cfg
        if cfg.loss_agg not in AGGREGATIONS:
            raise ConfigError(f"loss_agg must be one of {', '.join(AGGREGATIONS)}")
        kinds = {p.kind for p in self.schedule}
        if cfg.async_rollouts and (kinds != {"rl"} or cfg.algorithm in EXPERT_ALGORITHMS):
            raise ConfigError(
                f"async_rollouts runs a schedule of one RL phase (the asynchronous source "
                f"feeds the GRPO family); {cfg.algorithm!r} with phases "
                f"{[p.name for p in self.schedule]} has behaviour-cloning or semi-online steps")

    def setup(self) -> None:
        """Build everything: process group, model, learner, policy, sources, objectives."""
        cfg = self.cfg
        self._check_schedule()
        if os.environ.get("RANK", "0") == "0":  # before the model loads: a refusal is instant
            prepare_run_dir(cfg.output_dir, resume=cfg.resume, overwrite=cfg.overwrite)
        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        self.device = pick_device(cfg.device, int(os.environ.get("LOCAL_RANK", "0")))
        self.dist = init_distributed(self.device)
        random.seed(cfg.seed)
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        spec = agentgym.spec(cfg.env)
        self.sampler = make_sampler(cfg, self._task_ids(cfg.train_split))  # issue 17: curation
        eval_ids = self._task_ids(cfg.eval_split)[: cfg.eval_tasks or None]
        self.eval_ids = shard(eval_ids, self.dist.rank, self.dist.world_size)
        self.eval_total = len(eval_ids)
        """Held-out tasks of one evaluation, over all ranks (the progress bar says it)."""
        self.max_turns = cfg.resolved_max_turns(spec.max_turns)
        self.max_response = cfg.max_new_tokens * self.max_turns
        self.loss_fn = get_registry("losses").load(f"loss/{cfg.loss}")
        self.adv_fn = get_registry("losses").load(f"advantage/{cfg.advantage}")

        self.autocast = autocast_dtype(cfg.dtype, self.device)
        self.share_prompt = self._share_prompt()
        model, tokenizer = self._given
        if model is None:
            model, tokenizer, _ = build_model(cfg, self.device)
        # a vision-language model comes with its processor: images travel with the ids
        self.processor = tokenizer if isinstance(tokenizer, HasImageProcessor) else None
        tokenizer = self.processor.tokenizer if self.processor is not None else tokenizer
        self.tokenizer, self.pad_id = tokenizer, pad_id(tokenizer)
        self.ref_model = frozen_copy(model) if cfg.kl_coef > 0 and not cfg.lora else None
        if cfg.parallel not in ("ddp", "fsdp"):
            raise ConfigError(f"parallel must be ddp or fsdp, not {cfg.parallel!r}")
        sharded = cfg.parallel == "fsdp" and self.dist.enabled
        self.replica = fsdp.replica(model) if sharded else None  # the ranks' rollout copy
        self.model = (fsdp.shard(model, self.autocast) if sharded
                      else wrap_ddp(model, self.dist, self.device))
        trainable = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = make_optimizer(trainable, cfg)
        self.scheduler = make_scheduler(self.optimizer, cfg)
        self.policy, self.sync = self._make_policy()
        self.learner = Learner(cfg, self.model, self.optimizer, self.scheduler, self.loss_fn,
                               self.dist, self.autocast, self.tokenizer, self.policy,
                               ref_model=self.ref_model, sync=self.sync, replica=self.replica)
        if cfg.opponent or cfg.eval_opponents:  # multi-agent seat envs
            from .selfplay import SelfPlay

            self.selfplay = SelfPlay(self)
        extra = self.selfplay.env_kwargs() if self.selfplay is not None else {}
        rollouts: Any
        if cfg.rollout_source == "gateway":  # issue 28: external agents through the gateway
            from .gateway_rollouts import GatewayRollouts

            rollouts = GatewayRollouts(cfg, self.policy, self.max_turns)
        else:
            rollouts = Rollouts(cfg, self.policy, self.max_turns, extra_env_kwargs=extra)
        self.engine = EngineSource(cfg, rollouts, self.sampler, self.dist)
        main = self.dist.is_main
        self.metrics = MetricsLogger(cfg.output_dir, tensorboard=cfg.tensorboard,
                                     wandb=cfg.wandb, config=cfg.to_dict(), enabled=main)
        if main:
            save_config(cfg, Path(cfg.output_dir) / "config.yaml")
        if cfg.async_rollouts:
            from .sources.asynchronous import AsyncSource

            eval_policy = self.shared_policy(self.policy.model) if self.sync is None else None
            self.async_source = AsyncSource(cfg, self.engine, self.dist, eval_policy=eval_policy,
                                            max_turns=self.max_turns, is_main=main)
        self._setup_phases()

    def _setup_phases(self) -> None:
        """Each phase's source and objective; the expert data the schedule needs; eval hooks."""
        cfg = self.cfg
        kinds = {p.kind for p in self.schedule}
        assert self.dist is not None and self.engine is not None
        rl_source: RolloutSource = self.async_source or self.engine
        group = GroupObjective(cfg, self.adv_fn, pad_id=self.pad_id,
                               max_response=self.max_response, share_prompt=self.share_prompt,
                               processor=self.processor, dist=self.dist,
                               version=lambda: self.learner.version(self.state.step))
        self.phase_parts["rl"] = (rl_source, group)
        self.experts: dict[str, Any] = {}
        if BC in kinds or cfg.algorithm in EXPERT_ALGORITHMS:  # runs that read expert episodes
            from . import experts

            experts.patient_rollouts(self)
            self.chat, self.eos_id = experts.chat_and_eos(self.tokenizer)
            if cfg.bc_steps > 0 or SEMI_ONLINE in kinds:
                self.experts = experts.experts_for(self, cfg.expert_data, cfg.train_split)
            from .scoring.bc import BCObjective
            from .sources.expert import ExpertSource

            self.phase_parts[BC] = (
                ExpertSource(self.experts, self.sampler, self.chat, self.eos_id,
                             cfg.bc_batch_size), BCObjective(cfg, self.pad_id))
        if SEMI_ONLINE in kinds:
            from .sources.semionline import semi_online_parts

            self.phase_parts[SEMI_ONLINE] = semi_online_parts(self)
        if self.selfplay is not None and cfg.eval_opponents:
            self.eval_hooks.append(self.selfplay)
        if cfg.sop_eval:
            from .experts import SOPEval

            self.eval_hooks.append(SOPEval(self))

    def _share_prompt(self) -> bool:
        """``share_prompt`` resolved: ``auto`` is on for CPU only; never with checkpointing."""
        value = self.cfg.share_prompt
        if value not in ("auto", "true", "false"):
            raise ConfigError(f"share_prompt must be auto, true or false, not {value!r}")
        on = self.device.type == "cpu" if value == "auto" else value == "true"
        return on and not self.cfg.gradient_checkpointing

    def _task_ids(self, split: str) -> list[str]:
        """Ids of ``split`` as the env sees them (``env_kwargs`` may filter tasks)."""
        cfg = self.cfg
        env = agentgym.make(cfg.env, **{**cfg.env_kwargs, "split": split})
        try:
            unwrapped = env.unwrapped
            if isinstance(unwrapped, HasTaskSet) and unwrapped.task_set is not None:
                return list(unwrapped.task_set.ids())
        finally:
            env.close()
        tasks = agentgym.spec(cfg.env).load_tasks()
        if tasks is None:
            raise ConfigError(f"env {cfg.env!r} has no task set; the trainer needs task splits")
        return tasks.split(split).ids()

    def shared_policy(self, model: Any) -> Any:
        """An in-process policy decoding from ``model`` (the trained module or its replica),
        built by the backend ``policy`` names (empty: ``hf``, or ``hf-vision`` for a model with a
        processor) through :func:`agentgym.policies.load_trainable_policy`."""
        cfg = self.cfg
        from agentgym.policies import load_trainable_policy

        backend = cfg.policy or ("hf-vision" if self.processor else "hf")
        return load_trainable_policy(
            backend, model, self.processor or self.tokenizer, device=str(self.device),
            max_batch_size=cfg.max_batch_size, autocast=self.autocast)

    def _make_policy(self) -> tuple[Any, Any]:
        cfg = self.cfg
        from agentgym.policies import load_policy, parse_policy_spec, trainable_backends

        if not cfg.policy or parse_policy_spec(cfg.policy)[0] in trainable_backends():
            module = self.replica if self.replica is not None else unwrap(self.model)
            return self.shared_policy(module), None

        from .weight_sync import WeightSync

        policy = load_policy(cfg.policy)
        if not isinstance(policy, HasTokenizer) or policy.tokenizer is None:
            raise ConfigError(
                f"policy {cfg.policy!r} has no tokenizer, so its trajectories lack exact token "
                "ids; train with the in-process hf or vllm policy")
        folder = cfg.weight_sync_dir or str(Path(cfg.output_dir) / "weights")
        return policy, WeightSync(policy, folder, cfg.weight_sync_url)

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
