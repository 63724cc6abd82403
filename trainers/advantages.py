"""Advantage estimators and reward shaping for the GRPO family: small pure functions.

Every estimator maps a flat batch of outcome rewards and the group each belongs to (a group is the
G rollouts of one task) to one advantage per trajectory, broadcast later over its model tokens:

- :func:`grpo_advantages`: ``A_i = (R_i - mean(R_g)) / (std(R_g) + eps)``, the sample standard
  deviation (Bessel-corrected, as TRL and verl compute it); a group of one gets 0.
- :func:`dr_grpo_advantages`: Dr. GRPO drops the std division, ``A_i = R_i - mean(R_g)``.
- :func:`agentwise_advantages`: Dr. MAS's agent-wise normalisation for multi-agent rollouts:
  each agent's rewards are normalised with that agent's own statistics within the group
  (``group = (task, agent)``), instead of one global normalisation over every agent of the
  task, which lets the agent with the larger reward scale dominate the gradient.

Reward shaping:

- :func:`overlong_penalty`: DAPO's soft penalty for responses that run into the length limit.
- :func:`informative_groups`: DAPO's dynamic-sampling filter (groups whose rewards all match give
  no gradient and are dropped; the trainer refills the batch).

Estimators are registered by name (``advantage/grpo``...) through ``agentgym_register_losses``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Protocol

import torch
from torch import Tensor


class AdvantageFn(Protocol):
    """An advantage estimator: rewards ``(N,)`` and group ids -> advantages ``(N,)``."""

    def __call__(self, rewards: Tensor, group_ids: Sequence[Hashable], eps: float = 1e-6) -> Tensor:
        ...


def _group_index(group_ids: Sequence[Hashable], n: int) -> Tensor:
    """Map arbitrary group ids to dense indices ``0..K-1``; shape ``(N,)``."""
    if len(group_ids) != n:
        raise ValueError(f"got {n} rewards but {len(group_ids)} group ids")
    dense: dict[Hashable, int] = {}
    return torch.tensor([dense.setdefault(g, len(dense)) for g in group_ids], dtype=torch.long)


def group_stats(rewards: Tensor, group_ids: Sequence[Hashable]) -> tuple[Tensor, Tensor, Tensor]:
    """Per-trajectory group mean, sample std and group size, each of shape ``(N,)``."""
    rewards = rewards.to(torch.float64)
    index = _group_index(group_ids, rewards.shape[0])
    k = int(index.max()) + 1 if index.numel() else 0
    count = torch.zeros(k, dtype=torch.float64).index_add_(0, index, torch.ones_like(rewards))
    total = torch.zeros(k, dtype=torch.float64).index_add_(0, index, rewards)
    mean = total / count  # (K,)
    sq = torch.zeros(k, dtype=torch.float64).index_add_(0, index, (rewards - mean[index]) ** 2)
    std = torch.sqrt(sq / (count - 1).clamp(min=1))  # (K,), 0 for singleton groups
    return mean[index], std[index], count[index]


def grpo_advantages(rewards: Tensor, group_ids: Sequence[Hashable], eps: float = 1e-6) -> Tensor:
    """GRPO group-normalised advantages ``(R - mean_g) / (std_g + eps)``; shape ``(N,)``."""
    mean, std, count = group_stats(rewards, group_ids)
    centred = rewards.to(torch.float64) - mean
    adv = centred / (std + eps).clamp(min=1e-12)  # zero-variance groups: 0 / tiny = 0
    return torch.where(count > 1, adv, torch.zeros_like(adv)).to(torch.float32)


def dr_grpo_advantages(
    rewards: Tensor, group_ids: Sequence[Hashable], eps: float = 1e-6
) -> Tensor:
    """Dr. GRPO advantages ``R - mean_g`` (no std division); shape ``(N,)``. ``eps`` is unused."""
    mean, _, count = group_stats(rewards, group_ids)
    adv = rewards.to(torch.float64) - mean
    return torch.where(count > 1, adv, torch.zeros_like(adv)).to(torch.float32)


def agentwise_advantages(
    rewards: Tensor, group_ids: Sequence[Hashable], agent_ids: Sequence[Hashable],
    eps: float = 1e-6, *, centre_only: bool = False,
) -> Tensor:
    """Dr. MAS agent-wise advantages: GRPO (or Dr. GRPO with ``centre_only``) normalisation
    within each ``(group, agent)`` pair; shape ``(N,)``."""
    if len(agent_ids) != len(group_ids):
        raise ValueError(f"got {len(group_ids)} group ids but {len(agent_ids)} agent ids")
    pairs = list(zip(group_ids, agent_ids, strict=True))
    if centre_only:
        return dr_grpo_advantages(rewards, pairs, eps)
    return grpo_advantages(rewards, pairs, eps)


def overlong_penalty(lengths: Tensor, max_length: int, buffer: int) -> Tensor:
    """DAPO soft overlong punishment added to the reward, shape of ``lengths``.

    0 while ``|y| <= max_length - buffer``; ``((max_length - buffer) - |y|) / buffer`` inside the
    buffer (falling linearly to -1); -1 beyond ``max_length``. ``buffer == 0`` disables it.
    """
    if buffer <= 0:
        return torch.zeros_like(lengths, dtype=torch.float32)
    if buffer > max_length:
        raise ValueError(f"overlong buffer {buffer} exceeds max length {max_length}")
    lengths = lengths.to(torch.float32)
    start = max_length - buffer
    inside = (start - lengths) / buffer
    penalty = torch.where(lengths <= start, torch.zeros_like(lengths), inside)
    return torch.where(lengths > max_length, torch.full_like(lengths, -1.0), penalty)


def informative_groups(
    rewards: Sequence[float], group_ids: Sequence[Hashable], tol: float = 1e-8
) -> list[Hashable]:
    """Group ids, in first-seen order, whose rewards are not all equal (DAPO dynamic sampling)."""
    seen: dict[Hashable, list[float]] = {}
    for r, g in zip(rewards, group_ids, strict=True):
        seen.setdefault(g, []).append(float(r))
    return [g for g, rs in seen.items() if max(rs) - min(rs) > tol]


__all__ = [
    "AdvantageFn",
    "agentwise_advantages",
    "dr_grpo_advantages",
    "group_stats",
    "grpo_advantages",
    "informative_groups",
    "overlong_penalty",
]
