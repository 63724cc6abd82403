"""Semi-online RL (UI-S1) returns and advantages: small pure functions.

For one copy of an expert trajectory with step rewards ``r_0..r_{T-1}`` (``T`` = the steps the
copy took) and ``matched[t]`` (the model's action at ``t`` matched the expert's exactly):

- discounted return, backwards: ``R_t = r_t + gamma * R_{t+1}`` if step ``t`` matched, else
  ``R_t = r_t`` (no propagation across a patched or failing step) -- :func:`discounted_returns`;
- step-level advantage: ``R_t`` normalised within the group {same task, same step index} over
  the copies that reached that step (a singleton group gives 0) -- :func:`step_advantages`;
- episode-level advantage: the copy's episode return (the sum of its step rewards) normalised
  within the task's copies -- :func:`episode_advantages`;
- combined ``A = w_E * A_E + w_S * A_S`` (w_E = w_S = 1) -- :func:`semi_online_advantages`;
- filter: keep a task only if the std of its step-0 return across its copies exceeds 0.3 --
  :func:`keep_task`.

Normalisation is the GRPO one: ``(x - mean_g) / (std_g + eps)`` with the sample
(Bessel-corrected) std, as :func:`agentgym.trainers.advantages.grpo_advantages` computes it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import torch
from torch import Tensor

from .advantages import group_stats, grpo_advantages


def discounted_returns(rewards: Sequence[float], matched: Sequence[bool],
                       gamma: float) -> list[float]:
    """``R_t`` of one copy, computed backwards; no propagation across unmatched steps."""
    if len(rewards) != len(matched):
        raise ValueError(f"{len(rewards)} rewards but {len(matched)} match flags")
    out = [0.0] * len(rewards)
    nxt = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        has_next = t + 1 < len(rewards)
        out[t] = rewards[t] + (gamma * nxt if matched[t] and has_next else 0.0)
        nxt = out[t]
    return out


def _normalise(values: Sequence[float], groups: Sequence[Hashable], eps: float) -> list[float]:
    if not values:
        return []
    return [float(a) for a in grpo_advantages(torch.tensor(values, dtype=torch.float64),
                                              list(groups), eps=eps)]


def step_advantages(returns: Sequence[Sequence[float]], task_ids: Sequence[Hashable],
                    eps: float = 1e-6) -> list[list[float]]:
    """Per copy and step: ``R_t`` normalised within {task, step index}; same shape as returns."""
    flat, keys = [], []
    for task, rs in zip(task_ids, returns, strict=True):
        for t, r in enumerate(rs):
            flat.append(r)
            keys.append((task, t))
    adv = _normalise(flat, keys, eps)
    out, i = [], 0
    for rs in returns:
        out.append(adv[i: i + len(rs)])
        i += len(rs)
    return out


def episode_advantages(episode_returns: Sequence[float], task_ids: Sequence[Hashable],
                       eps: float = 1e-6) -> list[float]:
    """Per copy: its episode return normalised within its task's copies."""
    return _normalise(list(episode_returns), task_ids, eps)


def semi_online_advantages(
    rewards: Sequence[Sequence[float]],
    matched: Sequence[Sequence[bool]],
    task_ids: Sequence[Hashable],
    *,
    gamma: float = 0.5,
    w_episode: float = 1.0,
    w_step: float = 1.0,
    eps: float = 1e-6,
) -> tuple[list[list[float]], list[list[float]]]:
    """Combined advantages ``w_E * A_E + w_S * A_S`` per copy and step, and the returns ``R_t``.

    ``rewards[i]`` and ``matched[i]`` are copy ``i``'s per-step values; ``task_ids[i]`` its task.
    """
    returns = [discounted_returns(r, m, gamma) for r, m in zip(rewards, matched, strict=True)]
    a_step = step_advantages(returns, task_ids, eps)
    a_ep = episode_advantages([float(sum(r)) for r in rewards], task_ids, eps)
    combined = [[w_episode * a_ep[i] + w_step * a for a in a_step[i]] for i in range(len(returns))]
    return combined, returns


def semi_online_step_advantages(
    rewards: Tensor, group_ids: Sequence[Hashable], eps: float = 1e-6, *, gamma: float = 0.5,
    w_episode: float = 1.0, w_step: float = 1.0,
) -> Tensor:
    """The estimator registered as ``advantage/semi_online`` (the AdvantageFn signature).

    ``rewards`` ``(N,)`` are step rewards of step samples; ``group_ids[i]`` is the sample's
    ``(task_id, copy, step, matched)``. Copies are rebuilt from the keys (steps in order), so the
    combined advantage of every sample comes back in the input order; shape ``(N,)``.
    """
    copies: dict[tuple[Hashable, Hashable], list[tuple[int, int, float, bool]]] = {}
    for i, (key, r) in enumerate(zip(group_ids, rewards.tolist(), strict=True)):
        if not (isinstance(key, tuple) and len(key) == 4):
            raise ValueError("semi_online advantages need (task_id, copy, step, matched) keys")
        task, copy, step, matched = key
        copies.setdefault((task, copy), []).append((int(step), i, float(r), bool(matched)))
    order = [sorted(v) for v in copies.values()]
    combined, _ = semi_online_advantages(
        [[s[2] for s in c] for c in order], [[s[3] for s in c] for c in order],
        [task for task, _ in copies], gamma=gamma, w_episode=w_episode, w_step=w_step, eps=eps)
    out = torch.zeros(len(group_ids), dtype=torch.float32)
    for c, advs in zip(order, combined, strict=True):
        for (_, i, _, _), a in zip(c, advs, strict=True):
            out[i] = a
    return out


def keep_task(step0_returns: Sequence[float], min_std: float = 0.3) -> bool:
    """UI-S1's filter: the sample std of the copies' step-0 returns must exceed ``min_std``."""
    if len(step0_returns) < 2:
        return False
    _, std, _ = group_stats(torch.tensor(list(step0_returns)), [0] * len(step0_returns))
    return float(std[0]) > min_std


__all__ = ["discounted_returns", "episode_advantages", "keep_task", "semi_online_advantages",
           "semi_online_step_advantages", "step_advantages"]
