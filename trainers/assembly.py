"""How a trainer is put together from its config: the process group, the model and its
frozen reference, the optimizer and the one learner, the policy (in process, or a server fed by
a weight sync), the rollout source of each phase, the objectives and the eval hooks.

:class:`TrainerAssembly` holds the trainer's parts and builds them in
:meth:`~TrainerAssembly.setup`; :class:`~agentgym.trainers.grpo.GRPOTrainer` adds the step, the
evaluation and the run loop.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch

import agentgym
from agentgym import ConfigError, get_registry

from . import fsdp
from .checkpoint import prepare_run_dir
from .config import TrainConfig, save_config
from .curation import make_sampler
from .data import shard
from .distributed import DistInfo, init_distributed, unwrap, wrap_ddp
from .learner import Learner
from .losses import AGGREGATIONS
from .modeling import autocast_dtype, build_model, frozen_copy, pad_id, pick_device
from .parts import (
    EvalHook,
    HasImageProcessor,
    HasTaskSet,
    HasTokenizer,
    PhaseObjective,
    RolloutSource,
)
from .progress import RunProgress
from .rollouts import Rollouts
from .schedule import BC, EXPERT_ALGORITHMS, SEMI_ONLINE, Phase, build_schedule
from .scoring.group import GroupObjective
from .sources.engine import EngineSource
from .state import TrainState
from .tracking import MetricsLogger
from .update import make_optimizer, make_scheduler


class TrainerAssembly:
    """A trainer's parts, built from its config by :meth:`setup` (the run loop is
    :class:`~agentgym.trainers.grpo.GRPOTrainer`'s)."""


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


__all__ = ["TrainerAssembly"]
