"""The semi-online objective (UI-S1): step and episode advantages of discounted returns.

Every step of every copy is one training sample (its prompt at that step + the generated turn).
Tasks whose step-0 returns vary too little (std <= ``semi_filter_std``) are dropped; the rest get
advantages from the ``advantage`` estimator (``semi_online``: discounted step returns without
propagation across patched steps, step- and episode-level normalisation combined with
``semi_w_step`` / ``semi_w_episode``; :mod:`agentgym.trainers.semionline_returns`).
"""

from __future__ import annotations

from typing import Any

import torch

from agentgym.rollout import CopyResult, Trajectory

from ..batch import collate, empty_batch
from ..config import TrainConfig
from ..distributed import DistInfo, all_sum
from ..parts import Collected, Scored
from ..semionline_returns import discounted_returns, keep_task


def step_trajectories(group: list[CopyResult]) -> list[Trajectory]:
    """Training samples of one task's copies, ordered by step then copy (shared prompts adjoin)."""
    out = []
    samples = sorted((s for c in group for s in c.steps), key=lambda s: (s.step, s.copy))
    full = {c.copy: c.fully_matched for c in group}
    for s in samples:
        t = Trajectory(task_id=s.task_id, sample_idx=s.copy, group_id=f"{s.task_id}:{s.step}")
        t.start(s.prompt_ids)
        t.add_generation(s.generation)
        t.messages = [{"role": "assistant", "content": s.generation.text}]
        t.reward, t.step_rewards, t.turns = s.reward, [s.reward], 1
        t.info = {"step": s.step, "matched": s.matched, "patched": s.patched,
                  "action_score": s.action_score, "success": full[s.copy]}
        t.terminated = True
        out.append(t)
    return out


class SemiOnlineObjective:
    """UI-S1's advantages over the copies' step samples; the run's token loss."""

    def __init__(self, cfg: TrainConfig, adv_fn: Any, *, pad_id: int, share_prompt: bool,
                 dist: DistInfo) -> None:
        self.cfg, self.adv_fn, self.pad_id = cfg, adv_fn, pad_id
        self.share_prompt, self.dist = share_prompt, dist

    @staticmethod
    def _keys(trajs: list[Trajectory]) -> list[tuple[Any, int, int, bool]]:
        return [(t.task_id, t.sample_idx, int(t.info["step"]), bool(t.info["matched"]))
                for t in trajs]

    def score(self, collected: Collected) -> Scored:
        """Filter tasks, advantages, the batch; no update when no rank kept a sample."""
        cfg = self.cfg
        kept, trajs = 0, []
        for group in collected.samples:
            step0 = [discounted_returns([s.reward for s in c.steps], [s.matched for s in c.steps],
                                        cfg.semi_gamma)[0] for c in group if c.steps]
            if cfg.semi_filter_std < 0 or keep_task(step0, cfg.semi_filter_std):
                kept += 1
                trajs += [t for t in step_trajectories(group) if t.num_generated_tokens > 0]
        if trajs:
            rewards = torch.tensor([t.reward for t in trajs], dtype=torch.float32)  # (N,)
            adv = self.adv_fn(rewards, self._keys(trajs), eps=cfg.adv_eps, gamma=cfg.semi_gamma,
                              w_episode=cfg.semi_w_episode, w_step=cfg.semi_w_step)  # (N,)
            batch = collate(trajs, adv, pad_id=self.pad_id, loss_agg=cfg.loss_agg,
                            max_length=cfg.loss_max_length or cfg.max_new_tokens,
                            share_prompt=self.share_prompt)
        else:
            batch = empty_batch(self.pad_id)
        (n_train,) = all_sum([len(trajs)], self.dist)
        # every rank updates (DDP), none when no task survived the filter
        return Scored(batch, trajs, update=n_train > 0, figures={"kept": float(kept)})

    def metrics(self, collected: Collected, scored: Scored, update: dict[str, float],
                times: tuple[float, float, float]) -> dict[str, float]:
        """Step rewards, full matches, patched steps, kept and filtered tasks, timings."""
        groups = collected.samples
        copies = [c for g in groups for c in g]
        samples = [s for c in copies for s in c.steps]
        n_copies, full, n_steps, reward_sum, patched, n_kept, n_tasks = all_sum(
            [len(copies), sum(c.fully_matched for c in copies), len(samples),
             sum(s.reward for s in samples), sum(s.patched for s in samples),
             scored.figures["kept"], len(groups)], self.dist)
        t0, t1, t2 = times
        return {
            "reward": reward_sum / max(n_steps, 1),
            "success": full / max(n_copies, 1),
            "episodes": n_copies,
            "step_samples": n_steps,
            "trained_episodes": float(len(scored.trajectories)),
            "patched_steps": patched,
            "kept_tasks": n_kept,
            "filtered_tasks": n_tasks - n_kept,
            "rollout_s": t1 - t0,
            "update_s": t2 - t1,
            "step_s": t2 - t0,
            **update,
        }


__all__ = ["SemiOnlineObjective", "step_trajectories"]
