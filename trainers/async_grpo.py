"""The asynchronous trainer under its earlier name: asynchrony is a rollout source now.

``async_rollouts: true`` makes the learning phase collect from the
:class:`~agentgym.trainers.sources.asynchronous.AsyncSource` (rollouts on a background thread,
``staleness_eta``, APRIL's ``partial_rollouts``); :class:`~agentgym.trainers.grpo.GRPOTrainer`
builds it, so no class is made at run time. :class:`AsyncGRPOTrainer` is that trainer with the
source's objects under the names earlier code reads (``generator``, ``batch_log``,
``eval_rollouts``, ``eval_policy``) and a refusal of configs without ``async_rollouts``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentgym import ConfigError

from .grpo import GRPOTrainer
from .sources.asynchronous import BATCH_LOG, AsyncSource


class AsyncGRPOTrainer(GRPOTrainer):
    """The trainer with the asynchronous source (``async_rollouts: true`` required)."""

    def setup(self) -> None:
        """Refuse a config without ``async_rollouts``; then the trainer's setup."""
        if not self.cfg.async_rollouts:
            raise ConfigError("AsyncGRPOTrainer is the asynchronous trainer: set "
                              "async_rollouts: true (or run GRPOTrainer)")
        super().setup()

    @property
    def source(self) -> AsyncSource:
        """The asynchronous rollout source."""
        assert isinstance(self.async_source, AsyncSource), "setup() builds the source"
        return self.async_source

    @property
    def generator(self) -> Any:
        """The source's rollout generator (None before the first step)."""
        return self.source.generator

    @property
    def batch_log(self) -> Path:
        """``<output_dir>/async_batches.jsonl``: each trained round's groups and versions."""
        return self.source.batch_log

    @property
    def eval_rollouts(self) -> Any:
        """The evaluation engines over the evaluation policy (None with a remote policy)."""
        return self.source.eval_rollouts

    @property
    def eval_policy(self) -> Any:
        """The evaluation policy over the trained module (None with a remote policy)."""
        return self.source.eval_policy


def async_trainer(cls: type[GRPOTrainer]) -> type[GRPOTrainer]:
    """``cls`` itself: every trainer runs asynchronously when ``async_rollouts`` is set (kept
    for earlier callers; a schedule with BC or semi-online steps is refused at setup)."""
    if not issubclass(cls, GRPOTrainer):
        raise ConfigError(f"async_rollouts needs a trainer built on GRPOTrainer; "
                          f"{cls.__name__} is not")
    return cls


__all__ = ["BATCH_LOG", "AsyncGRPOTrainer", "async_trainer"]
