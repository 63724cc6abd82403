"""The group objective: the GRPO family and every algorithm of ``trainers/objectives/``.

Rewards (+ overlong shaping) -> the algorithm's advantages (per group, per seat with
``advantage_scope: agent``, per tree node for forked rollouts) -> a padded batch over the exact
tokens; with ``max_version_lag``, tokens too many policy versions old are masked out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from agentgym import ConfigError
from agentgym.rollout import Trajectory

from ..advantages import overlong_penalty
from ..batch import collate, context_rows, empty_batch
from ..config import TrainConfig
from ..distributed import DistInfo, all_sum
from ..offpolicy import mask_batch, target_versions, version_keep
from ..parts import Collected, Scored
from ..tree_advantages import is_tree, tree_rows


class GroupObjective:
    """Group-relative advantages by the run's estimator, the run's token loss."""

    def __init__(self, cfg: TrainConfig, adv_fn: Any, *, pad_id: int, max_response: int,
                 share_prompt: bool, processor: Any, dist: DistInfo,
                 version: Callable[[], int]) -> None:
        """``version`` gives the rollout policy's current weight version."""
        self.cfg, self.adv_fn, self.pad_id = cfg, adv_fn, pad_id
        self.max_response, self.share_prompt = max_response, share_prompt
        self.processor, self.dist, self.version = processor, dist, version

    def prepare(self, groups: list[list[Trajectory]]) -> tuple[Any, list[Trajectory]]:
        """Rewards -> advantages -> a padded :class:`TrainBatch` (group by group)."""
        cfg = self.cfg
        trajs = [t for g in groups
                 for t in sorted(g, key=lambda t: -len(t.token_ids))  # groups stay contiguous
                 if not t.aborted and t.num_generated_tokens > 0]
        if not trajs:
            return empty_batch(self.pad_id), []
        rewards = torch.tensor([t.reward for t in trajs], dtype=torch.float32)  # (N,)
        lengths = torch.tensor([t.num_generated_tokens for t in trajs])  # (N,)
        buffer = cfg.overlong_buffer if cfg.overlong_buffer >= 0 else max(1, self.max_response // 5)
        shaped = rewards + overlong_penalty(lengths, self.max_response, buffer)
        keys: list[Any] = [t.group_id for t in trajs]
        if cfg.advantage_scope == "agent":  # Dr. MAS: each seat against its own statistics
            keys = [(t.group_id, str(t.info.get("seat", ""))) for t in trajs]
        if is_tree(trajs):  # issue 41: each tree node's tokens once, with its node's advantage
            rows, row_adv = tree_rows(trajs, shaped, normalise=cfg.advantage != "dr_grpo",
                                      eps=cfg.adv_eps)
        else:
            adv = self.adv_fn(shaped, keys, eps=cfg.adv_eps)  # (N,)
            rows, row_adv = context_rows(trajs, adv)  # SUPO: a row per context, episode's adv
        vision = None
        if self.processor is not None:
            if len(rows) != len(trajs):
                raise ConfigError("summarised context (summary_budget) needs a text model: "
                                  "a later context's images are not split out")
            from agentgym.policies import image_inputs

            vision = image_inputs(self.processor, [t.images for t in trajs])
        batch = collate(rows, row_adv, pad_id=self.pad_id, loss_agg=cfg.loss_agg,
                        max_length=cfg.loss_max_length or self.max_response,
                        share_prompt=self.share_prompt, vision=vision)
        if cfg.max_version_lag >= 0:  # issue 17: drop tokens too many policy versions old
            versions = target_versions(rows, batch.mask.shape[1])  # (B, L-1)
            batch = mask_batch(batch, version_keep(versions, self.version(), cfg.max_version_lag))
        return batch, trajs

    def score(self, collected: Collected) -> Scored:
        """The batch of the step's groups and the counts over all ranks."""
        batch, trajs = self.prepare(collected.groups)
        every = [t for g in collected.result.groups for t in g  # aborted: not the model's;
                 if not t.aborted and not t.info.get("dart_replay")]  # DART replays: old
        n_total, wins, reward_sum, n_batch = all_sum(
            [len(every), sum(t.success for t in every), sum(t.reward for t in every), len(trajs)],
            self.dist)
        figures = {"episodes": n_total, "wins": wins, "reward_sum": reward_sum,
                   "n_batch": n_batch, "local": float(len(every))}
        return Scored(batch, trajs, trained=n_batch > 0, figures=figures)

    def metrics(self, collected: Collected, scored: Scored, update: dict[str, float],
                times: tuple[float, float, float]) -> dict[str, float]:
        """Reward, success, episode and token counts, timings, then the update's figures."""
        ro, f = collected.result, scored.figures
        t0, t1, t2 = times
        n_total = f["episodes"]
        return {
            "reward": f["reward_sum"] / max(n_total, 1),
            "success": f["wins"] / max(n_total, 1),
            "episodes": n_total,
            "trained_episodes": f["n_batch"],
            "dropped_groups": float(ro.dropped_groups),
            "aborted": float(ro.aborted),
            "response_tokens": ro.generated_tokens / max(f["local"], 1),
            "rollout_s": t1 - t0,
            "update_s": t2 - t1,
            "step_s": t2 - t0,
            "gen_tokens_per_s": ro.generated_tokens / max(ro.seconds, 1e-9),
            "update_tokens_per_s": update.get("train_tokens", 0.0) / max(t2 - t1, 1e-9),
            "policy_version": float(self.version()),
            **update,
        }


__all__ = ["GroupObjective"]
