"""The trainer's resumable state, checkpoint save/load, and the end-of-run report.

Under DDP rank 0 writes the weights, optimizer and scheduler; every rank writes its own RNG
states and task-sampler cursor (dynamic sampling can move the cursors differently per rank).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from agentgym import ConfigError

from .checkpoint import (
    finalize,
    latest_checkpoint,
    load_optimizer,
    load_rank_state,
    load_weights,
    save_optimizer,
    save_rank_state,
    save_trajectories,
    save_weights,
    step_dir,
)
from .config import TrainConfig
from .distributed import DistInfo, barrier, unwrap
from .fsdp import (
    full_optimizer_state,
    full_state,
    is_sharded,
    load_full_optimizer_state,
    load_full_state,
)
from .parts import SavesPretrained, Versioned
from .tracking import plot_report, read_metrics

logger = logging.getLogger(__name__)


@dataclass
class TrainResult:
    """What a finished run produced."""

    output_dir: Path
    steps: int
    baseline: dict[str, float] = field(default_factory=dict)
    """Held-out metrics before training (empty when not evaluated)."""
    final: dict[str, float] = field(default_factory=dict)
    """Held-out metrics after the last step."""
    report_png: Path | None = None


@dataclass
class TrainState:
    """Counters that, with the weights, optimizer and RNGs, define where a run is."""

    step: int = 0
    """Optimizer steps (rollout batches) done."""
    round: int = 0
    """Rollout rounds started (several per step with dynamic sampling); seeds the sampling."""
    env_steps: int = 0
    """Env steps the training rollouts took so far (a tree's shared prefixes once)."""
    last_trajectories: list[Any] = field(default_factory=list)
    """The last step's trained trajectories (saved with the checkpoint)."""


@dataclass
class RunParts:
    """The live objects a checkpoint saves and restores, handed over by the trainer."""

    model: Any
    """The trained module (plain, DDP-wrapped or FSDP-sharded)."""
    optimizer: Any
    scheduler: Any
    sampler: Any
    """The task sampler (its cursor is per rank)."""
    policy: Any
    """The rollout policy (its weight version is saved)."""
    tokenizer: Any
    metrics: Any
    """The :class:`~agentgym.trainers.tracking.MetricsLogger` (truncated on resume)."""


def trainable_state(model: Any) -> dict[str, torch.Tensor]:
    """The trainable parameters by name (all of them in full fine-tuning, adapters with LoRA).

    For an FSDP-sharded model this gathers the full weights: every rank must call it.
    """
    if is_sharded(model):
        return full_state(model, to_cpu=True, trainable_only=True)
    return {n: p.detach().cpu() for n, p in unwrap(model).named_parameters() if p.requires_grad}


def save_checkpoint(cfg: TrainConfig, d: DistInfo, st: TrainState, parts: RunParts) -> Path:
    """Write the checkpoint of the current step (all ranks call this)."""
    tmp = step_dir(cfg.output_dir, st.step).with_suffix(".tmp")
    if d.is_main:
        tmp.mkdir(parents=True, exist_ok=True)
    barrier(d)
    save_rank_state(tmp, d.rank, {"sampler": parts.sampler.state_dict()})
    sharded = is_sharded(parts.model)
    weights = trainable_state(parts.model) if sharded or d.is_main else {}  # collective if sharded
    optimizer_state = None
    if cfg.save_optimizer:
        if sharded:
            optimizer_state = full_optimizer_state(parts.model, parts.optimizer)
        elif d.is_main:
            optimizer_state = parts.optimizer.state_dict()
    barrier(d)
    final = step_dir(cfg.output_dir, st.step)
    if d.is_main:
        save_weights(tmp, weights)
        if optimizer_state is not None:
            save_optimizer(tmp, optimizer_state)
        torch.save(
            {
                "step": st.step,
                "round": st.round,
                "env_steps": st.env_steps,
                "scheduler": parts.scheduler.state_dict(),
                "policy_version": (parts.policy.version if isinstance(parts.policy, Versioned)
                                   else st.step),
                "world_size": d.world_size,
                "sharded_optimizer": sharded,
            },
            tmp / "trainer.pt",
        )
        save_trajectories(tmp, st.last_trajectories)
        final = finalize(tmp, cfg.output_dir, st.step, cfg.keep_checkpoints)
    barrier(d)
    return final


def load_checkpoint(cfg: TrainConfig, d: DistInfo, st: TrainState, parts: RunParts) -> bool:
    """Restore the newest complete checkpoint; False when there is none (a fresh start)."""
    folder = latest_checkpoint(cfg.output_dir)
    if folder is None:
        logger.warning("resume: no checkpoint in %s; starting from scratch", cfg.output_dir)
        return False
    meta = torch.load(folder / "trainer.pt", weights_only=False)
    if meta["world_size"] != d.world_size:
        raise ConfigError(
            f"checkpoint {folder} was written by {meta['world_size']} ranks, not {d.world_size}"
        )
    weights = load_weights(folder)
    model = unwrap(parts.model)
    missing = set(weights) - {n for n, _ in model.named_parameters()}
    if missing:
        raise ConfigError(f"checkpoint {folder} holds unknown weights: {sorted(missing)[:3]}")
    sharded = is_sharded(parts.model)
    if sharded:
        load_full_state(parts.model, weights)
    else:
        model.load_state_dict(weights, strict=False)
    optimizer_state = load_optimizer(folder, meta)
    if optimizer_state is None:
        logger.warning("resume: %s holds no optimizer state; the optimizer starts afresh", folder)
    elif sharded != bool(meta.get("sharded_optimizer", False)):
        logger.warning("resume: %s holds optimizer state of another parallelism; the optimizer "
                       "starts afresh", folder)
    elif sharded:
        load_full_optimizer_state(parts.model, parts.optimizer, optimizer_state)
    else:
        parts.optimizer.load_state_dict(optimizer_state)
    parts.scheduler.load_state_dict(meta["scheduler"])
    st.step, st.round = int(meta["step"]), int(meta["round"])
    st.env_steps = int(meta.get("env_steps", 0))
    if isinstance(parts.policy, Versioned):
        parts.policy.version = int(meta["policy_version"])
    rank_state = load_rank_state(folder, d.rank)  # restores the RNGs last
    parts.sampler.load_state_dict(rank_state["sampler"])
    parts.metrics.truncate_after(st.step)
    return True


def final_report(cfg: TrainConfig, d: DistInfo, st: TrainState, parts: RunParts,
                 last_eval: dict[str, float]) -> TrainResult:
    """Save the final model, draw the learning curves and write ``summary.json`` (rank 0).

    Every rank calls it (an FSDP run gathers its weights here); only rank 0 writes.
    """
    out = Path(cfg.output_dir)
    result = TrainResult(out, st.step, final=dict(last_eval))
    sharded = is_sharded(parts.model)
    weights = full_state(parts.model, to_cpu=True) if sharded else None  # collective
    if not d.is_main:
        return result
    final_dir = out / "final"
    model = parts.policy.model if sharded else unwrap(parts.model)  # FSDP: the full replica
    if weights is not None:
        model.load_state_dict(weights, strict=False)
    if isinstance(model, SavesPretrained):
        model.save_pretrained(final_dir)
    if isinstance(parts.tokenizer, SavesPretrained):
        parts.tokenizer.save_pretrained(final_dir)
    if parts.metrics.path.exists():
        evals = [r for r in read_metrics(parts.metrics.path) if r["kind"] == "eval"]
        if evals and evals[0]["step"] == 0:
            result.baseline = {k: v for k, v in evals[0].items() if k not in ("step", "kind")}
        title = f"{cfg.algorithm} on {cfg.env} ({cfg.model})"
        result.report_png = plot_report(parts.metrics.path, out / "report.png", title)
    summary = {"steps": result.steps, "baseline": result.baseline, "final": result.final,
               "config": cfg.to_dict()}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return result


__all__ = ["RunParts", "TrainResult", "TrainState", "final_report", "load_checkpoint",
           "save_checkpoint", "trainable_state"]
