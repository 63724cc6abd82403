"""Semi-online RL (UI-S1): RL on recorded expert trajectories as if online.

A phase of the schedule (``algorithm: semi_online``; ``bc_steps`` behaviour-cloning steps may
come first). One step is the trainer's one step with this phase's parts:

1. :class:`~agentgym.trainers.sources.semionline.SemiOnlineSource`: ``tasks_per_step`` train
   tasks that have an expert trajectory, ``group_size`` semi-online copies of each
   (:class:`agentgym.rollout.semionline.SemiOnlineRollout`: the model's own history, the
   expert's observations, the patch module with ``patch_threshold`` / ``patch_mode``); every
   step of every copy is one training sample (its prompt at that step + the generated turn);
2. :class:`~agentgym.trainers.scoring.semionline.SemiOnlineObjective`: drop tasks whose step-0
   returns vary too little (std <= ``semi_filter_std``), advantages from the ``advantage``
   estimator (``semi_online``: :mod:`agentgym.trainers.semionline_returns`);
3. the learner's update, as for GRPO (``loss``, ``loss_agg``, micro-batches, the weight push).

Evaluations report the true online success on the held-out split and, with ``sop_eval``, SOP,
TSR and PG on the same split's expert trajectories. Resuming works as for GRPO: the sampling
seeds derive from the saved rollout round.
"""

from __future__ import annotations

from agentgym.policies import SamplingParams
from agentgym.rollout import CopyResult, SemiOnlineRollout, Trajectory, matcher_for_env

from .grpo import GRPOTrainer
from .scoring.semionline import SemiOnlineObjective
from .sources.semionline import SemiOnlineSource


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


def semi_online_parts(trainer: GRPOTrainer) -> tuple[SemiOnlineSource, SemiOnlineObjective]:
    """The semi-online phase's source and objective over the trainer's policy and experts."""
    cfg = trainer.cfg
    assert trainer.dist is not None
    matcher = matcher_for_env(cfg.env, {**cfg.env_kwargs, "split": cfg.train_split})
    sampling = SamplingParams(max_tokens=cfg.max_new_tokens, temperature=cfg.temperature,
                              top_p=cfg.top_p)
    semi = SemiOnlineRollout(
        trainer.policy, matcher, sampling=sampling, patch_threshold=cfg.patch_threshold,
        patch_mode=cfg.patch_mode, max_tokens=cfg.max_tokens, seed=cfg.seed)
    source = SemiOnlineSource(cfg, semi, trainer.experts, trainer.sampler, trainer.dist)
    objective = SemiOnlineObjective(cfg, trainer.adv_fn, pad_id=trainer.pad_id,
                                    share_prompt=trainer.share_prompt, dist=trainer.dist)
    return source, objective


class SemiOnlineTrainer(GRPOTrainer):
    """The trainer under its earlier name for semi-online runs: ``algorithm: semi_online``
    makes the schedule's learning phase semi-online; nothing here differs."""


__all__ = ["SemiOnlineTrainer", "semi_online_parts", "step_trajectories"]
