"""The learner: the trained model, its optimizer and scheduler, the update, the weight push.

It never knows which algorithm it serves: a phase hands it a batch (advantages and masks
already in it), a token loss and, optionally, its own learning rate and config
(:meth:`Learner.update`). Where the rollouts run decides the push, chosen once when it is built:

- the in-process ``hf`` policy shares the module: the optimizer step runs inside the policy's
  :meth:`updating_weights` block (:class:`~.parts.GuardsWeights`), which bumps its version;
- another policy (``vllm``, an OpenAI-compatible server) gets the weights through a
  :class:`~.parts.PushesWeights` (:class:`~.weight_sync.WeightSync`) after each update;
- under FSDP every rank refreshes its full rollout replica after each update.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from . import fsdp
from .config import TrainConfig
from .distributed import DistInfo, unwrap
from .offpolicy import behaviour_keep, mask_batch
from .parts import GuardsWeights, PushesWeights, Versioned
from .update import policy_update, precompute_logprobs


@dataclass
class Learner:
    """Model, reference model, optimizer, scheduler and the way weights reach the rollouts."""

    cfg: TrainConfig
    model: Any
    """The trained module (DDP- or FSDP-wrapped under ``torchrun``)."""
    optimizer: Any
    scheduler: Any
    loss_fn: Any
    """The run's token loss (``loss/<name>`` of the registry)."""
    dist: DistInfo
    autocast: Any
    tokenizer: Any
    policy: Any
    """The rollout policy (its version is the weights' version)."""
    ref_model: Any = None
    """A frozen copy for the KL term; None without one (LoRA: the adapter-less base)."""
    sync: PushesWeights | None = None
    """Pushes weights to an out-of-process policy; None when the policy shares the module."""
    replica: Any = None
    """The FSDP ranks' full rollout copy; None otherwise."""

    def __post_init__(self) -> None:
        shared = self.sync is None and self.replica is None
        self.guard = (self.policy.updating_weights
                      if shared and isinstance(self.policy, GuardsWeights) else None)
        """The shared policy's weight guard, found once here."""
        self.versioned = isinstance(self.policy, Versioned)

    def version(self, fallback: int) -> int:
        """The rollout policy's weight version (``fallback`` for one that keeps none)."""
        return int(self.policy.version) if self.versioned else fallback

    def reset_optimizer(self) -> None:
        """Drop the optimizer's moments (a phase that must not inherit the last one's)."""
        self.optimizer.state.clear()

    def update(self, batch: Any, *, trained: bool = True, lr: float | None = None,
               loss_fn: Any = None, cfg: TrainConfig | None = None) -> dict[str, float]:
        """The optimizer step(s) on a prepared batch and the weight push; returns its metrics.

        ``trained`` is False when no rank has data (every rank still joins the collectives).
        ``lr`` and ``loss_fn`` override the run's for one phase (see
        :func:`~agentgym.trainers.update.policy_update`); ``cfg`` replaces the run's config for
        this update (a phase with its own temperature or clipping).
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
            upd = policy_update(self.model, batch, cfg, loss_fn or self.loss_fn, self.optimizer,
                                scheduler=self.scheduler, weights_guard=self.guard,
                                autocast=self.autocast, lr=lr)
            if self.sync is not None and self.dist.is_main:
                self.sync.push(unwrap(self.model), self.tokenizer)
        if self.replica is not None:  # FSDP: every rank refreshes its rollout copy (collective)
            self.policy.load_state_dict(fsdp.full_state(self.model), strict=False)
        self.model.eval()
        return upd

    def _ref_logprobs(self, batch: Any) -> torch.Tensor:
        cfg = self.cfg
        if self.ref_model is not None:
            return precompute_logprobs(self.ref_model, batch, cfg.micro_batch_size,
                                       cfg.temperature, self.autocast, cfg.logprobs)
        with unwrap(self.model).disable_adapter():  # LoRA: the base model is the reference
            return precompute_logprobs(self.model, batch, cfg.micro_batch_size,
                                       cfg.temperature, self.autocast, cfg.logprobs)


__all__ = ["Learner"]
