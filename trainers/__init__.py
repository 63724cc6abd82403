"""Trainers (``agentgym.trainers``): the GRPO family on the public agentgym API.

>>> from agentgym.trainers import load_config, train                          # doctest: +SKIP
>>> result = train(load_config("configs/grpo_arith_cpu.yaml", ["steps=5"]))  # doctest: +SKIP
>>> result.baseline["success_greedy"], result.final["success_greedy"]        # doctest: +SKIP

Losses and advantage estimators are small pure functions in :mod:`.losses` and
:mod:`.advantages`; the trainer, checkpointing, logging and data-parallel helpers live in their
own modules. Everything is registered through the same plugin hooks a third party uses
(:mod:`.plugin`).
"""

from __future__ import annotations

from typing import Any

from .advantages import dr_grpo_advantages, grpo_advantages, informative_groups, overlong_penalty
from .config import TrainConfig, load_config, parse_overrides
from .losses import aggregation_weights, gspo_loss, k3_kl, ppo_clip_loss, tis_weights


def train(cfg: TrainConfig, **kwargs: Any) -> Any:
    """Run the trainer registered as ``cfg.algorithm`` and return its result."""
    from agentgym import get_registry

    trainer_cls = get_registry("trainers").load(cfg.algorithm)
    return trainer_cls(cfg, **kwargs).train()


def __getattr__(name: str) -> Any:
    if name in ("GRPOTrainer", "TrainResult"):  # lazy: importing the trainer pulls in the engine
        from . import grpo

        return getattr(grpo, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "GRPOTrainer",
    "TrainConfig",
    "TrainResult",
    "aggregation_weights",
    "dr_grpo_advantages",
    "grpo_advantages",
    "gspo_loss",
    "informative_groups",
    "k3_kl",
    "load_config",
    "overlong_penalty",
    "parse_overrides",
    "ppo_clip_loss",
    "tis_weights",
    "train",
]
