"""Semi-online RL (UI-S1) trainer: RL on recorded expert trajectories as if online.

One step, top to bottom (:meth:`SemiOnlineTrainer.rl_step`):

1. take ``tasks_per_step`` train tasks that have an expert trajectory;
2. run ``group_size`` semi-online copies of each
   (:class:`agentgym.rollout.semionline.SemiOnlineRollout`: the model's own history, the
   expert's observations, the patch module with ``patch_threshold`` / ``patch_mode``); every
   step of every copy is one training sample (its prompt at that step + the generated turn);
3. drop tasks whose step-0 returns vary too little (std <= ``semi_filter_std``);
4. advantages from the ``advantage`` estimator (``semi_online``: discounted step returns without
   propagation across patched steps, step-level and episode-level normalisation, combined with
   ``semi_w_step`` / ``semi_w_episode``; :mod:`agentgym.trainers.semionline_returns`);
5. the same update as GRPO (``loss``, ``loss_agg``, micro-batches, the weight push).

Evaluations report the true online success on the held-out split and, with ``sop_eval``, SOP,
TSR and PG on the same split's expert trajectories. ``bc_steps`` behaviour-cloning steps may
come first (:class:`agentgym.trainers.bc.BCWarmupTrainer`). Resuming works as for GRPO: the
sampling seeds derive from the saved rollout round.
"""

from __future__ import annotations

import time
from typing import Any

import torch

from agentgym.policies import SamplingParams
from agentgym.rollout import CopyResult, SemiOnlineRollout, Trajectory, matcher_for_env

from .batch import collate, empty_batch
from .bc import BCWarmupTrainer
from .data import shard
from .distributed import all_sum
from .semionline_returns import discounted_returns, keep_task


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


class SemiOnlineTrainer(BCWarmupTrainer):
    """Semi-online RL with the patch module; BC warm-up and SOP evaluation optional."""

    needs_experts = True

    def setup(self) -> None:
        """The BC/GRPO setup plus the action matcher and the semi-online rollout."""
        super().setup()
        cfg = self.cfg
        matcher = matcher_for_env(cfg.env, {**cfg.env_kwargs, "split": cfg.train_split})
        sampling = SamplingParams(max_tokens=cfg.max_new_tokens, temperature=cfg.temperature,
                                  top_p=cfg.top_p)
        self.semi = SemiOnlineRollout(
            self.policy, matcher, sampling=sampling, patch_threshold=cfg.patch_threshold,
            patch_mode=cfg.patch_mode, max_tokens=cfg.max_tokens, seed=cfg.seed)

    def _keys(self, trajs: list[Trajectory]) -> list[tuple[Any, int, int, bool]]:
        return [(t.task_id, t.sample_idx, int(t.info["step"]), bool(t.info["matched"]))
                for t in trajs]

    def rl_step(self) -> dict[str, float]:
        """One semi-online step (see the module docstring)."""
        cfg, d = self.cfg, self.dist
        t0 = time.perf_counter()
        self.model.eval()
        local = shard(self.sampler.take(cfg.tasks_per_step), d.rank, d.world_size)
        experts = [self.experts[i] for i in local if i in self.experts]
        groups = self.semi.run(experts, cfg.group_size, round=self.state.round)
        self.state.round += 1
        kept, trajs = 0, []
        for group in groups:
            step0 = [discounted_returns([s.reward for s in c.steps], [s.matched for s in c.steps],
                                        cfg.semi_gamma)[0] for c in group if c.steps]
            if cfg.semi_filter_std < 0 or keep_task(step0, cfg.semi_filter_std):
                kept += 1
                trajs += [t for t in step_trajectories(group) if t.num_generated_tokens > 0]
        copies = [c for g in groups for c in g]
        samples = [s for c in copies for s in c.steps]
        t1 = time.perf_counter()
        upd: dict[str, float] = {}
        if trajs:
            rewards = torch.tensor([t.reward for t in trajs], dtype=torch.float32)  # (N,)
            adv = self.adv_fn(rewards, self._keys(trajs), eps=cfg.adv_eps, gamma=cfg.semi_gamma,
                              w_episode=cfg.semi_w_episode, w_step=cfg.semi_w_step)  # (N,)
            batch = collate(trajs, adv, pad_id=self.pad_id, loss_agg=cfg.loss_agg,
                            max_length=cfg.loss_max_length or cfg.max_new_tokens,
                            share_prompt=bool(getattr(self, "share_prompt", True)))
        else:
            batch = empty_batch(self.pad_id)
        (n_train,) = all_sum([len(trajs)], d)
        if n_train > 0:  # every rank updates (DDP), none when no task survived the filter
            upd = self.update(batch)
        t2 = time.perf_counter()
        n_copies, full, n_steps, reward_sum, patched, n_kept, n_tasks = all_sum(
            [len(copies), sum(c.fully_matched for c in copies), len(samples),
             sum(s.reward for s in samples), sum(s.patched for s in samples), kept, len(groups)],
            d)
        self.state.step += 1
        self.state.last_trajectories = trajs
        return {
            "reward": reward_sum / max(n_steps, 1),
            "success": full / max(n_copies, 1),
            "episodes": n_copies,
            "step_samples": n_steps,
            "trained_episodes": float(len(trajs)),
            "patched_steps": patched,
            "kept_tasks": n_kept,
            "filtered_tasks": n_tasks - n_kept,
            "rollout_s": t1 - t0,
            "update_s": t2 - t1,
            "step_s": t2 - t0,
            **upd,
        }


__all__ = ["SemiOnlineTrainer", "step_trajectories"]
