"""The trainer's resumable state, checkpoint save/load, and the end-of-run report.

Under DDP rank 0 writes the weights, optimizer and scheduler; every rank writes its own RNG
states and task-sampler cursor (dynamic sampling can move the cursors differently per rank).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from .distributed import barrier, unwrap
from .tracking import plot_report, read_metrics

if TYPE_CHECKING:
    from .grpo import GRPOTrainer, TrainResult

logger = logging.getLogger(__name__)


@dataclass
class TrainState:
    """Counters that, with the weights, optimizer and RNGs, define where a run is."""

    step: int = 0
    """Optimizer steps (rollout batches) done."""
    round: int = 0
    """Rollout rounds started (several per step with dynamic sampling); seeds the sampling."""
    last_trajectories: list[Any] = field(default_factory=list)
    """The last step's trained trajectories (saved with the checkpoint)."""


def trainable_state(model: Any) -> dict[str, torch.Tensor]:
    """The trainable parameters by name (all of them in full fine-tuning, adapters with LoRA)."""
    return {n: p.detach().cpu() for n, p in unwrap(model).named_parameters() if p.requires_grad}


def save_checkpoint(trainer: GRPOTrainer) -> Path:
    """Write the checkpoint of the current step (all ranks call this)."""
    cfg, d, st = trainer.cfg, trainer.dist, trainer.state
    tmp = step_dir(cfg.output_dir, st.step).with_suffix(".tmp")
    if d.is_main:
        tmp.mkdir(parents=True, exist_ok=True)
    barrier(d)
    save_rank_state(tmp, d.rank, {"sampler": trainer.sampler.state_dict()})
    barrier(d)
    final = step_dir(cfg.output_dir, st.step)
    if d.is_main:
        save_weights(tmp, trainable_state(trainer.model))
        if cfg.save_optimizer:
            save_optimizer(tmp, trainer.optimizer.state_dict())
        torch.save(
            {
                "step": st.step,
                "round": st.round,
                "scheduler": trainer.scheduler.state_dict(),
                "policy_version": getattr(trainer.policy, "version", st.step),
                "world_size": d.world_size,
            },
            tmp / "trainer.pt",
        )
        save_trajectories(tmp, st.last_trajectories)
        final = finalize(tmp, cfg.output_dir, st.step, cfg.keep_checkpoints)
    barrier(d)
    return final


def load_checkpoint(trainer: GRPOTrainer) -> bool:
    """Restore the newest complete checkpoint; False when there is none (a fresh start)."""
    cfg, d = trainer.cfg, trainer.dist
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
    missing = set(weights) - {n for n, _ in unwrap(trainer.model).named_parameters()}
    if missing:
        raise ConfigError(f"checkpoint {folder} holds unknown weights: {sorted(missing)[:3]}")
    unwrap(trainer.model).load_state_dict(weights, strict=False)
    optimizer_state = load_optimizer(folder, meta)
    if optimizer_state is None:
        logger.warning("resume: %s holds no optimizer state; the optimizer starts afresh", folder)
    else:
        trainer.optimizer.load_state_dict(optimizer_state)
    trainer.scheduler.load_state_dict(meta["scheduler"])
    trainer.state.step, trainer.state.round = int(meta["step"]), int(meta["round"])
    if hasattr(trainer.policy, "version"):
        trainer.policy.version = int(meta["policy_version"])
    rank_state = load_rank_state(folder, d.rank)  # restores the RNGs last
    trainer.sampler.load_state_dict(rank_state["sampler"])
    trainer.metrics.truncate_after(trainer.state.step)
    return True


def final_report(trainer: GRPOTrainer) -> TrainResult:
    """Save the final model, draw the learning curves and write ``summary.json`` (rank 0)."""
    from .grpo import TrainResult

    cfg = trainer.cfg
    out = Path(cfg.output_dir)
    result = TrainResult(out, trainer.state.step, final=dict(trainer.last_eval))
    if not trainer.dist.is_main:
        return result
    final_dir = out / "final"
    model = unwrap(trainer.model)
    if hasattr(model, "save_pretrained"):
        model.save_pretrained(final_dir)
    if hasattr(trainer.tokenizer, "save_pretrained"):
        trainer.tokenizer.save_pretrained(final_dir)
    if trainer.metrics.path.exists():
        evals = [r for r in read_metrics(trainer.metrics.path) if r["kind"] == "eval"]
        if evals and evals[0]["step"] == 0:
            result.baseline = {k: v for k, v in evals[0].items() if k not in ("step", "kind")}
        title = f"{cfg.algorithm} on {cfg.env} ({cfg.model})"
        result.report_png = plot_report(trainer.metrics.path, out / "report.png", title)
    summary = {"steps": result.steps, "baseline": result.baseline, "final": result.final,
               "config": cfg.to_dict()}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return result


__all__ = ["TrainState", "final_report", "load_checkpoint", "save_checkpoint", "trainable_state"]
