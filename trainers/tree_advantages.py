"""Advantages for tree rollouts: each node's value from its leaves, each segment trained once.

A tree group (:mod:`agentgym.rollout.tree`) is a set of leaves whose token sequences share
prefixes: every node of the tree is a segment of turns that all the leaves under it hold
exactly. The estimator (a tree-structured, prefix-sharing form of GRPO, as in Tree-GRPO and
TreeRPO):

- a leaf's value is its (shaped) return; an inner node's value ``V(n)`` is the mean of its
  children's values (each subtree counts once, however many leaves it has);
- the group's baseline ``V(root)`` is the mean over the tree's roots;
- the tokens a node generated get ``A(n) = (V(n) - V(parent(n))) / (std + eps)``, where
  ``std`` is the sample standard deviation of the group's leaf returns (``normalise=False``:
  Dr. GRPO's form, no division).

Along a root-to-leaf path the advantages add up to ``(R_leaf - V(root)) / std``, a chain GRPO
advantage; the tree moves each part of it to the segment where the outcomes split, and trains
a shared prefix once (one row), not once per leaf.

Rows: a node's row is its segment's context (the leaf's tokens up to the node's end), with the
loss mask on the node's own generated tokens only. Trajectories without ``info["tree"]`` (chain
groups) are rows of their own with the usual group advantage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

from agentgym.rollout import Segment

Path = tuple[int, ...]


def _values(leaves: dict[Path, float]) -> dict[Path, float]:
    """Every node's value: leaves their return, inner nodes the mean of their children."""
    values = dict(leaves)
    depth = max((len(p) for p in leaves), default=0)
    for d in range(depth - 1, 0, -1):
        children: dict[Path, list[float]] = {}
        for p, v in values.items():
            if len(p) == d + 1:
                children.setdefault(p[:d], []).append(v)
        for p, vs in children.items():
            values[p] = sum(vs) / len(vs)
    return values


def _row(leaf: Any, start: int, end: int) -> Segment:
    """``leaf``'s tokens ``[0, end)`` with the loss mask on ``[start, end)`` only."""
    mask = [0] * start + list(leaf.loss_mask[start:end])
    logprobs = [0.0] * start + list(leaf.logprobs[start:end])
    return Segment(token_ids=list(leaf.token_ids[:end]), loss_mask=mask, logprobs=logprobs,
                   versions=list(leaf.versions[:end]), prompt_len=len(leaf.prompt_ids))


def tree_rows(trajectories: Sequence[Any], rewards: Tensor, *, normalise: bool = True,
              eps: float = 1e-6) -> tuple[list[Any], Tensor]:
    """Training rows and their advantages ``(R,)`` for tree groups (see the module doc).

    ``trajectories`` come group by group (``group_id``); ``rewards`` ``(N,)`` is their shaped
    return. Leaves whose group has one leaf get advantage 0, as in GRPO.
    """
    if len(trajectories) != rewards.shape[0]:
        raise ValueError(f"{len(trajectories)} trajectories but {rewards.shape[0]} rewards")
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(trajectories):
        groups.setdefault(t.group_id, []).append(i)
    rows: list[Any] = []
    advs: list[float] = []
    for members in groups.values():
        r = rewards[members].to(torch.float64)
        std = float(r.std()) if len(members) > 1 else 0.0
        scale = 1.0
        if normalise:  # every leaf equal (std 0): the advantages are 0 whatever the scale
            scale = 1.0 / (std + eps) if std + eps > 0 else 0.0
        if len(members) < 2:
            scale = 0.0
        trees = {i: trajectories[i].info.get("tree") for i in members}
        leaves = {tuple(trees[i]["path"]) if trees[i] else (i,): float(rewards[i])
                  for i in members}
        values = _values(leaves)
        roots = [v for p, v in values.items() if len(p) == 1]
        values[()] = sum(roots) / len(roots)
        owner: dict[Path, int] = {}  # node -> the first leaf under it (its row's tokens)
        for i in sorted(members, key=lambda i: tuple(trees[i]["path"]) if trees[i] else (i,)):
            path = tuple(trees[i]["path"]) if trees[i] else (i,)
            for d in range(1, len(path) + 1):
                owner.setdefault(path[:d], i)
        for node, i in owner.items():
            leaf, tree = trajectories[i], trees[i]
            at = list(tree["branch_at"]) if tree else []
            start = at[len(node) - 2] if len(node) > 1 else 0
            end = at[len(node) - 1] if len(node) <= len(at) else len(leaf.token_ids)
            row = _row(leaf, start, end)
            if not any(row.loss_mask):
                continue
            rows.append(row)
            advs.append((values[node] - values[node[:-1]]) * scale)
    return rows, torch.tensor(advs, dtype=torch.float32)


def is_tree(trajectories: Sequence[Any]) -> bool:
    """Whether any trajectory came from a tree group."""
    return any("tree" in t.info for t in trajectories)


__all__ = ["is_tree", "tree_rows"]
