"""Policy losses of the GRPO family: small pure functions on ``(B, T)`` token tensors.

Shapes: ``B`` trajectories, ``T`` positions (``T = L - 1`` for sequences of ``L`` tokens: position
``t`` holds the log-prob of token ``t + 1``). ``mask`` is 1 on model-generated tokens.

A loss returns per-token losses ``(B, T)`` and a boolean ``(B, T)`` "clipped" indicator; the
trainer then applies the optional truncated importance weights (:func:`tis_weights`) and KL term
(:func:`k3_kl`) and reduces with per-token weights from :func:`aggregation_weights`:

- ``seq_mean_token_mean`` (GRPO): mean over each sequence's tokens, then over sequences;
- ``token_mean`` (DAPO): one mean over every token of the batch;
- ``seq_mean_token_sum_norm`` (Dr. GRPO): token sum divided by a constant ``B * max_length``.

Weights are computed for the whole batch before it is split into micro-batches, so gradient
accumulation gives exactly the full-batch loss. Losses are registered by name (``loss/ppo_clip``,
``loss/gspo``) through ``agentgym_register_losses``.
"""

from __future__ import annotations

from typing import Protocol

import torch
from torch import Tensor

AGGREGATIONS = ("seq_mean_token_mean", "token_mean", "seq_mean_token_sum_norm")


class PolicyLossFn(Protocol):
    """A policy loss: returns per-token loss ``(B, T)`` and clipped flags ``(B, T)``."""

    def __call__(
        self,
        logp: Tensor,
        old_logp: Tensor,
        advantages: Tensor,
        mask: Tensor,
        eps_low: float,
        eps_high: float,
    ) -> tuple[Tensor, Tensor]:
        ...


def _per_token(advantages: Tensor, like: Tensor) -> Tensor:
    """Broadcast ``(B,)`` trajectory advantages to ``(B, T)``; ``(B, T)`` passes through."""
    return advantages.unsqueeze(-1).expand_as(like) if advantages.dim() == 1 else advantages


def ppo_clip_loss(
    logp: Tensor,
    old_logp: Tensor,
    advantages: Tensor,
    mask: Tensor,
    eps_low: float = 0.2,
    eps_high: float = 0.2,
) -> tuple[Tensor, Tensor]:
    """PPO-clip token loss ``-min(r*A, clip(r, 1-eps_low, 1+eps_high)*A)``, ``r = exp(logp-old)``.

    ``eps_high > eps_low`` is DAPO's clip-higher. ``mask`` is unused here (the reduction applies
    it). Returns ``(loss (B, T), clipped (B, T))``.
    """
    del mask
    adv = _per_token(advantages, logp)  # (B, T)
    ratio = torch.exp(logp - old_logp)  # (B, T)
    clipped_ratio = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    loss = -torch.minimum(ratio * adv, clipped_ratio * adv)
    clipped = ((ratio < 1.0 - eps_low) & (adv < 0)) | ((ratio > 1.0 + eps_high) & (adv > 0))
    return loss, clipped


def sequence_ratio(logp: Tensor, old_logp: Tensor, mask: Tensor) -> Tensor:
    """GSPO length-normalised sequence ratio ``(pi/pi_old)^(1/|y|)``; shape ``(B,)``."""
    length = mask.sum(-1).clamp(min=1.0)  # (B,)
    return torch.exp(((logp - old_logp) * mask).sum(-1) / length)


def gspo_loss(
    logp: Tensor,
    old_logp: Tensor,
    advantages: Tensor,
    mask: Tensor,
    eps_low: float = 3e-4,
    eps_high: float = 4e-4,
) -> tuple[Tensor, Tensor]:
    """GSPO: PPO-clip on the sequence ratio :func:`sequence_ratio`, clipped per sequence.

    ``advantages`` must be per trajectory ``(B,)``. Each sequence's loss is broadcast over its
    positions, so the ``seq_mean_token_mean`` reduction gives the mean over sequences.
    Returns ``(loss (B, T), clipped (B, T))``.
    """
    if advantages.dim() != 1:
        raise ValueError("GSPO needs one advantage per trajectory, shape (B,)")
    ratio = sequence_ratio(logp, old_logp, mask)  # (B,)
    clipped_ratio = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    seq_loss = -torch.minimum(ratio * advantages, clipped_ratio * advantages)  # (B,)
    clipped = ((ratio < 1.0 - eps_low) & (advantages < 0)) | (
        (ratio > 1.0 + eps_high) & (advantages > 0)
    )
    return seq_loss.unsqueeze(-1).expand_as(logp), clipped.unsqueeze(-1).expand_as(logp)


def k3_kl(logp: Tensor, ref_logp: Tensor) -> Tensor:
    """k3 estimator of KL(pi || pi_ref) per token: ``exp(d) - d - 1``, ``d = ref_logp - logp``."""
    d = ref_logp - logp
    return torch.exp(d) - d - 1.0


def tis_weights(old_logp: Tensor, behav_logp: Tensor, cap: float) -> Tensor:
    """Truncated importance weights ``min(pi_old / pi_behav, cap)``, detached; shape of inputs."""
    return torch.exp(old_logp - behav_logp).clamp(max=cap).detach()


def aggregation_weights(mask: Tensor, mode: str, max_length: int | None = None) -> Tensor:
    """Per-token weights ``(B, T)`` whose product-sum with a per-token loss is the batch loss."""
    mask = mask.to(torch.float32)
    batch = mask.shape[0]
    if mode == "seq_mean_token_mean":
        length = mask.sum(-1, keepdim=True).clamp(min=1.0)  # (B, 1)
        return mask / (length * batch)
    if mode == "token_mean":
        return mask / mask.sum().clamp(min=1.0)
    if mode == "seq_mean_token_sum_norm":
        if not max_length:
            raise ValueError("seq_mean_token_sum_norm needs max_length (the constant normaliser)")
        return mask / (batch * max_length)
    raise ValueError(f"unknown loss aggregation {mode!r}; choose one of {', '.join(AGGREGATIONS)}")


def entropy_from_logits(logits: Tensor) -> Tensor:
    """Entropy of each position's next-token distribution: ``(B, T, V) -> (B, T)``."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    return -(logp.exp() * logp).sum(-1)


def token_logprobs(logits: Tensor, token_ids: Tensor) -> Tensor:
    """Log-prob of each next token: logits ``(B, L, V)``, ids ``(B, L)`` -> ``(B, L - 1)``."""
    logits = logits[:, :-1].float()  # (B, L-1, V)
    targets = token_ids[:, 1:].unsqueeze(-1)  # (B, L-1, 1)
    picked = torch.gather(logits, -1, targets).squeeze(-1)  # (B, L-1)
    return picked - torch.logsumexp(logits, dim=-1)


__all__ = [
    "AGGREGATIONS",
    "PolicyLossFn",
    "aggregation_weights",
    "entropy_from_logits",
    "gspo_loss",
    "k3_kl",
    "ppo_clip_loss",
    "sequence_ratio",
    "tis_weights",
    "token_logprobs",
]
