"""The GRPO-family trainer: roll out groups, score them, update the policy, evaluate, checkpoint.

One step, top to bottom (:meth:`GRPOTrainer.step`):

1. take ``tasks_per_step`` tasks from the train split (this rank's share under DDP);
2. roll out ``group_size`` episodes per task with the engine and the in-process policy;
   DAPO's dynamic sampling drops groups whose rewards all match and rolls out more tasks;
3. rewards (+ overlong shaping) -> group advantages -> a padded batch over the exact tokens;
4. gradient accumulation over micro-batches, optimizer step; the in-process policy shares the
   weights, so the step is the weight push (the policy version is bumped);
5. log, evaluate on the held-out split every ``eval_every`` steps, checkpoint.

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
from .advantages import informative_groups, overlong_penalty
from .batch import collate, context_rows, empty_batch
from .checkpoint import interrupted, prepare_run_dir
from .config import TrainConfig, save_config
from .curation import curation, make_sampler
from .data import shard
from .distributed import DistInfo, all_sum, cleanup, init_distributed, unwrap, wrap_ddp
from .losses import AGGREGATIONS
from .modeling import autocast_dtype, build_model, frozen_copy, pad_id, pick_device
from .offpolicy import behaviour_keep, mask_batch, target_versions, version_keep
from .progress import RunProgress
from .rollouts import RolloutResult, Rollouts
from .state import RunParts, TrainResult, TrainState, final_report, load_checkpoint, save_checkpoint
from .tracking import MetricsLogger
from .tree_advantages import is_tree, tree_rows
from .update import make_optimizer, make_scheduler, policy_update, precompute_logprobs

logger = logging.getLogger(__name__)


class GRPOTrainer:
    """GRPO, Dr. GRPO, DAPO and GSPO on multi-turn agentgym envs (choose with ``algorithm``)."""

    def __init__(self, cfg: TrainConfig, *, model: Any = None, tokenizer: Any = None) -> None:
        self.cfg = cfg
        self._given = (model, tokenizer)
        self.state = TrainState()
        self.baseline: dict[str, float] = {}
        self.last_eval: dict[str, float] = {}

    # -- setup ---------------------------------------------------------------------------------

    def setup(self) -> None:
        """Build everything: process group, model, optimizer, policy, engines, logger."""
        cfg = self.cfg
        if cfg.loss_agg not in AGGREGATIONS:
            raise ConfigError(f"loss_agg must be one of {', '.join(AGGREGATIONS)}")
        if cfg.async_rollouts and not getattr(self, "asynchronous", False):  # issue 17
            raise ConfigError("async_rollouts needs the asynchronous trainer: run through "
                              "agentgym.trainers.train or use AsyncGRPOTrainer")
        if os.environ.get("RANK", "0") == "0":  # before the model loads: a refusal is instant
            prepare_run_dir(cfg.output_dir, resume=cfg.resume, overwrite=cfg.overwrite)
        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        self.device = pick_device(cfg.device, int(os.environ.get("LOCAL_RANK", "0")))
        self.dist: DistInfo = init_distributed(self.device)
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
        self.processor = tokenizer if hasattr(tokenizer, "image_processor") else None
        tokenizer = getattr(self.processor, "tokenizer", tokenizer)
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
        self.selfplay = None
        if cfg.opponent or cfg.eval_opponents:  # multi-agent seat envs
            from .selfplay import SelfPlay

            self.selfplay = SelfPlay(self)
        extra = self.selfplay.env_kwargs() if self.selfplay is not None else {}
        self.rollouts: Any
        if cfg.rollout_source == "gateway":  # issue 28: external agents through the gateway
            from .gateway_rollouts import GatewayRollouts

            self.rollouts = GatewayRollouts(cfg, self.policy, self.max_turns)
        else:
            self.rollouts = Rollouts(cfg, self.policy, self.max_turns, extra_env_kwargs=extra)
        main = self.dist.is_main
        self.metrics = MetricsLogger(cfg.output_dir, tensorboard=cfg.tensorboard,
                                     wandb=cfg.wandb, config=cfg.to_dict(), enabled=main)
        if main:
            save_config(cfg, Path(cfg.output_dir) / "config.yaml")

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
            task_set = getattr(env.unwrapped, "task_set", None)
            if task_set is not None:
                return list(task_set.ids())
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
        if getattr(policy, "tokenizer", None) is None:
            raise ConfigError(
                f"policy {cfg.policy!r} has no tokenizer, so its trajectories lack exact token "
                "ids; train with the in-process hf or vllm policy")
        folder = cfg.weight_sync_dir or str(Path(cfg.output_dir) / "weights")
        return policy, WeightSync(policy, folder, cfg.weight_sync_url)

    # -- one step ------------------------------------------------------------------------------

    def _rollout(self, task_ids: list[str]) -> RolloutResult:
        curated = curation(self.sampler)  # issue 17: DARS, VADE, DART
        result = self.rollouts.groups(task_ids, self.state.round,
                                      curated.group_sizes(task_ids) if curated else None)
        self.state.round += 1
        if curated is not None:
            result.groups = curated.curate(result.groups)
        return result

    def collect(self) -> tuple[list[list[Trajectory]], RolloutResult]:
        """This rank's groups for one step (dynamic sampling refills dropped groups)."""
        cfg, d = self.cfg, self.dist
        local = shard(self.sampler.take(cfg.tasks_per_step), d.rank, d.world_size)
        first = self._rollout(local)
        groups = first.groups
        if cfg.dynamic_sampling:
            groups = self._informative(groups)
            first.dropped_groups = len(first.groups) - len(groups)
            for _ in range(cfg.max_refill_rounds):
                if len(groups) >= len(local):
                    break
                more = self._rollout(self.sampler.take(len(local) - len(groups)))
                kept = self._informative(more.groups)
                first.dropped_groups += len(more.groups) - len(kept)
                first.seconds += more.seconds
                first.generated_tokens += more.generated_tokens
                first.extra["env_steps"] = (first.extra.get("env_steps", 0)
                                            + more.extra.get("env_steps", 0))
                groups += kept
            groups = groups[: len(local)]
        return groups, first

    @staticmethod
    def _informative(groups: list[list[Trajectory]]) -> list[list[Trajectory]]:
        flat = [t for g in groups for t in g]
        keep = set(informative_groups([t.reward for t in flat], [t.group_id for t in flat]))
        return [g for g in groups if g[0].group_id in keep]

    def prepare(self, groups: list[list[Trajectory]]) -> tuple[Any, list[Trajectory]]:
        """Rewards -> advantages -> a padded :class:`TrainBatch` (group by group)."""
        cfg = self.cfg
        trajs = [t for g in groups
                 for t in sorted(g, key=lambda t: -len(t.token_ids))  # groups stay contiguous
                 if not t.aborted and t.num_generated_tokens > 0]
        if not trajs:
            return empty_batch(self.pad_id), []
        rewards = torch.tensor([t.reward for t in trajs], dtype=torch.float32)  # (N,)
        lengths = torch.tensor([t.num_generated_tokens for t in trajs])  # (N,)
        buffer = cfg.overlong_buffer if cfg.overlong_buffer >= 0 else max(1, self.max_response // 5)
        shaped = rewards + overlong_penalty(lengths, self.max_response, buffer)
        keys: list[Any] = [t.group_id for t in trajs]
        if cfg.advantage_scope == "agent":  # Dr. MAS: each seat against its own statistics
            keys = [(t.group_id, str(t.info.get("seat", ""))) for t in trajs]
        if is_tree(trajs):  # issue 41: each tree node's tokens once, with its node's advantage
            rows, row_adv = tree_rows(trajs, shaped, normalise=cfg.advantage != "dr_grpo",
                                      eps=cfg.adv_eps)
        else:
            adv = self.adv_fn(shaped, keys, eps=cfg.adv_eps)  # (N,)
            rows, row_adv = context_rows(trajs, adv)  # SUPO: a row per context, episode's adv
        vision = None
        if self.processor is not None:
            if len(rows) != len(trajs):
                raise ConfigError("summarised context (summary_budget) needs a text model: "
                                  "a later context's images are not split out")
            from agentgym.policies import image_inputs

            vision = image_inputs(self.processor, [t.images for t in trajs])
        batch = collate(rows, row_adv, pad_id=self.pad_id, loss_agg=cfg.loss_agg,
                        max_length=cfg.loss_max_length or self.max_response,
                        share_prompt=self.share_prompt, vision=vision)
        if cfg.max_version_lag >= 0:  # issue 17: drop tokens too many policy versions old
            current = int(getattr(self.policy, "version", self.state.step))
            versions = target_versions(rows, batch.mask.shape[1])  # (B, L-1)
            batch = mask_batch(batch, version_keep(versions, current, cfg.max_version_lag))
        return batch, trajs

    def step(self) -> dict[str, float]:
        """Run one training step; returns its metrics."""
        t0 = time.perf_counter()
        self.model.eval()
        groups, ro = self.collect()
        batch, trajs = self.prepare(groups)
        every = [t for g in ro.groups for t in g  # aborted: not the model's; DART replays: old
                 if not t.aborted and not t.info.get("dart_replay")]
        n_total, wins, reward_sum, n_batch = all_sum(
            [len(every), sum(t.success for t in every), sum(t.reward for t in every), len(trajs)],
            self.dist,
        )
        t1 = time.perf_counter()
        upd = self.update(batch, trained=n_batch > 0)
        t2 = time.perf_counter()
        self.state.step += 1
        self.state.last_trajectories = trajs
        self.state.env_steps += int(ro.extra.get("env_steps", 0))
        return {
            "env_steps": float(self.state.env_steps),
            "reward": reward_sum / max(n_total, 1),
            "success": wins / max(n_total, 1),
            "episodes": n_total,
            "trained_episodes": n_batch,
            "dropped_groups": float(ro.dropped_groups),
            "aborted": float(ro.aborted),
            "response_tokens": ro.generated_tokens / max(len(every), 1),
            "rollout_s": t1 - t0,
            "update_s": t2 - t1,
            "step_s": t2 - t0,
            "gen_tokens_per_s": ro.generated_tokens / max(ro.seconds, 1e-9),
            "update_tokens_per_s": upd.get("train_tokens", 0.0) / max(t2 - t1, 1e-9),
            "policy_version": float(getattr(self.policy, "version", self.state.step)),
            **upd,
        }

    def update(self, batch: Any, *, trained: bool = True, lr: float | None = None,
               loss_fn: Any = None, cfg: TrainConfig | None = None) -> dict[str, float]:
        """The optimizer step(s) on a prepared batch and the weight push; returns its metrics.

        ``trained`` is False when no rank has data (every rank still joins the collectives).
        Subclasses whose samples do not come from the engine (semi-online RL, behaviour cloning)
        build their own batch and call this; ``lr`` and ``loss_fn`` override the run's for one
        phase (see :func:`~agentgym.trainers.update.policy_update`); ``cfg`` replaces the run's
        config for this update (a phase with its own temperature or clipping).
        """
        cfg = cfg or self.cfg
        self.model.train()
        if self.ref_model is not None or (cfg.kl_coef > 0 and cfg.lora):
            batch.ref_logp = self._ref_logprobs(batch)
        masking = cfg.behav_weight_mode == "mask"  # issue 17: decoupled PPO's proximal policy
        if cfg.ppo_epochs > 1 or cfg.decoupled_ppo or masking:
            batch.old_logp = precompute_logprobs(self.model, batch, cfg.micro_batch_size,
                                                 cfg.temperature, self.autocast, cfg.logprobs)
        if masking and batch.old_logp is not None:  # drop tokens whose pi_prox/pi_behav > cap
            batch = mask_batch(batch, behaviour_keep(batch.old_logp, batch.behav_logp,
                                                     cfg.tis_cap))
        upd: dict[str, float] = {}
        if trained:
            shared = self.sync is None and self.replica is None
            guard = getattr(self.policy, "updating_weights", None) if shared else None
            upd = policy_update(self.model, batch, cfg, loss_fn or self.loss_fn, self.optimizer,
                                scheduler=self.scheduler, weights_guard=guard,
                                autocast=self.autocast, lr=lr)
            if self.sync is not None and self.dist.is_main:
                self.sync.push(unwrap(self.model), self.tokenizer)
        if self.replica is not None:  # FSDP: every rank refreshes its rollout copy (collective)
            self.policy.load_state_dict(fsdp.full_state(self.model), strict=False)
        self.model.eval()
        return upd

    def extra_eval_metrics(self) -> dict[str, float]:
        """Metrics added to each held-out evaluation row: win rates and Elo against
        ``eval_opponents`` (a subclass may add more)."""
        if self.selfplay is None or not self.cfg.eval_opponents:
            return {}
        return self.selfplay.evaluate(self.eval_ids)

    def _ref_logprobs(self, batch: Any) -> torch.Tensor:
        cfg = self.cfg
        if self.ref_model is not None:
            return precompute_logprobs(self.ref_model, batch, cfg.micro_batch_size,
                                       cfg.temperature, self.autocast, cfg.logprobs)
        with unwrap(self.model).disable_adapter():  # LoRA: the base model is the reference
            return precompute_logprobs(self.model, batch, cfg.micro_batch_size,
                                       cfg.temperature, self.autocast, cfg.logprobs)

    def evaluate(self) -> dict[str, float]:
        """Held-out success (greedy and sampled) with the current weights (the progress bar
        says an evaluation runs)."""
        self.model.eval()
        bar = getattr(self, "bar", None)
        with bar.evaluating(self.eval_total) if bar is not None else contextlib.nullcontext():
            result = {**self.rollouts.evaluate(self.eval_ids, self.dist),
                      **self.extra_eval_metrics()}
        self.metrics.log(self.state.step, "eval", result)
        self.last_eval = result
        return result

    # -- the run -------------------------------------------------------------------------------

    def train(self) -> TrainResult:
        """Run (or resume) the whole training loop; returns a :class:`TrainResult`."""
        cfg = self.cfg
        self.setup()
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
        """The live objects a checkpoint saves and restores."""
        return RunParts(self.model, self.optimizer, self.scheduler, self.sampler, self.policy,
                        self.tokenizer, self.metrics)

    def close(self) -> None:
        """Release engines, the policy, writers and the process group."""
        for closer in (getattr(self, "selfplay", None), getattr(self, "rollouts", None),
                       getattr(self, "metrics", None), getattr(self, "policy", None)):
            if closer is not None:
                closer.close()
        if hasattr(self, "dist"):
            cleanup(self.dist)


__all__ = ["GRPOTrainer", "TrainResult"]
