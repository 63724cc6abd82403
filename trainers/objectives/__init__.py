"""Objectives: one file per algorithm, found by listing this package.

An objective is what an algorithm adds to the shared rollout and update machinery: how rewards
become advantages, which token loss is applied, and the config values it needs. Each module of
this package defines ``OBJECTIVES``, a sequence of :class:`Objective`; :func:`discover` imports
every module here and :func:`register_objectives` puts each one in the registries, as the
``algorithm`` it names (``agentgym train ... algorithm=<name>``), its advantage estimator as
``advantage/<name>`` and its loss, if it brings one, as ``loss/<name>``. So a new algorithm is
one new file here: nothing else in the trainer changes (``rloo.py`` was added that way).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

TRAINER = "agentgym.trainers.grpo:GRPOTrainer"
"""The trainer every objective of this package runs in (rollouts, update, evaluation)."""
RUN = "agentgym.trainers:run_config"
"""What ``agentgym train`` calls: ``run(config, overrides, trainer=entry) -> TrainResult``
(``config`` is the parsed YAML mapping, ``entry`` the chosen trainer's registry entry)."""


@dataclass(frozen=True)
class Objective:
    """One algorithm: its name, a line saying what it is, its estimator, loss and preset."""

    name: str
    """The ``algorithm`` config value that selects it."""
    description: str
    """One line for ``agentgym list trainers``."""
    preset: Mapping[str, Any]
    """Config values it sets before the YAML file (``advantage``, ``loss``, clipping...)."""
    advantage: str | None = None
    """``"pkg.mod:function"`` of its advantage estimator (``AdvantageFn``), registered as
    ``advantage/<name>``; None when it uses another objective's (named in ``preset``)."""
    loss: str | None = None
    """``"pkg.mod:function"`` of its token loss (``PolicyLossFn``), registered as
    ``loss/<name>``; None when it uses a registered one (named in ``preset``)."""
    trainer: str = TRAINER
    """The trainer class entry point it runs in."""
    extras: Mapping[str, str] = field(default_factory=dict)
    """More registry entries it brings (``{"advantage/foo": "pkg.mod:fn"}``)."""


def discover() -> list[Objective]:
    """Every objective of every module in this package, in module-name order."""
    found: list[Objective] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(getattr(module, "OBJECTIVES", ()))
    return found


def register_objectives(register_trainer: Callable[..., Any] | None = None,
                        register_loss: Callable[..., Any] | None = None,
                        objectives: Sequence[Objective] | None = None) -> None:
    """Register the objectives with the trainer and loss registries' ``register`` functions."""
    for obj in discover() if objectives is None else objectives:
        if register_trainer is not None:
            register_trainer(obj.name, obj.trainer, description=obj.description,
                             preset=dict(obj.preset), run=RUN)
        if register_loss is not None:
            if obj.advantage:
                register_loss(f"advantage/{obj.name}", obj.advantage,
                              description=f"{obj.name}: {obj.description}")
            if obj.loss:
                register_loss(f"loss/{obj.name}", obj.loss,
                              description=f"{obj.name}: {obj.description}")
            for key, entry in obj.extras.items():
                register_loss(key, entry, description=f"{obj.name}: {key}")


__all__ = ["RUN", "TRAINER", "Objective", "discover", "register_objectives"]
