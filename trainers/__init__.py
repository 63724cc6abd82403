"""Trainers (``agentgym.trainers``): the GRPO family on the public agentgym API.

>>> from agentgym.trainers import load_config, train                          # doctest: +SKIP
>>> result = train(load_config("configs/grpo_arith_cpu.yaml", ["steps=5"]))  # doctest: +SKIP
>>> result.baseline["success_greedy"], result.final["success_greedy"]        # doctest: +SKIP

Losses and advantage estimators are small pure functions in :mod:`.losses` and
:mod:`.advantages`; the trainer, checkpointing, logging and data-parallel helpers live in their
own modules. Everything is registered through the same plugin hooks a third party uses
(:mod:`.plugin`). Names are imported on first use, so loading the plugin costs no torch import.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "AsyncGRPOTrainer": "async_grpo",
    "GRPOTrainer": "grpo",
    "TrainConfig": "config",
    "TrainResult": "state",
    "Trainer": "grpo",
    "aggregation_weights": "losses",
    "dr_grpo_advantages": "advantages",
    "grpo_advantages": "advantages",
    "gspo_loss": "losses",
    "informative_groups": "advantages",
    "k3_kl": "losses",
    "load_config": "config",
    "overlong_penalty": "advantages",
    "parse_overrides": "config",
    "ppo_clip_loss": "losses",
    "tis_weights": "losses",
}


def train(cfg: Any, *, trainer_cls: Any = None, **kwargs: Any) -> Any:
    """Run the trainer registered as ``cfg.algorithm`` (or ``trainer_cls``) on a config (its
    phases come from the config's schedule, its rollout source from ``async_rollouts`` and
    ``rollout_source``)."""
    if trainer_cls is None:
        from agentgym import get_registry

        trainer_cls = get_registry("trainers").load(cfg.algorithm)
    return trainer_cls(cfg, **kwargs).train()


def run_config(config: Any, overrides: list[str] | None = None, *, trainer: Any = None) -> Any:
    """``agentgym train``'s runner: a config (YAML path or parsed mapping) plus overrides.

    ``trainer`` is the registry entry the CLI already chose (its preset and class are used
    without asking the registry again).
    """
    from .config import load_config

    preset = dict(trainer.extra.get("preset", {})) if trainer is not None else None
    cfg = load_config(config, overrides, preset_values=preset)
    return train(cfg, trainer_cls=trainer.load() if trainer is not None else None)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted([*_LAZY, "run_config", "train"])
