"""Behaviour cloning's pieces: expert episodes in the engine's token layout, a run's expert data,
the NLL loss, the SOP eval hook (SFT on expert trajectories before GRPO or semi-online RL).

The expert's episodes are turned into the same token layout the rollout engine produces
(:func:`expert_training_trajectory`): the first prompt from the chat template, each expert
response as if the model had generated it (its text then the end-of-turn token, ``loss_mask``
1), each observation as the template delta (``loss_mask`` 0). So the loss falls on the model's
tokens only, with exactly the masks RL trains on, and the update path is the RL one
(:func:`agentgym.trainers.update.policy_update`) with the ``nll`` loss (``-logp`` times an
advantage of 1, averaged over every trained token of the batch).

BC is a phase of the schedule (:mod:`agentgym.trainers.schedule`): ``phases: [{bc: 4},
{grpo: 8}]``, or the earlier ``algorithm: bc_grpo`` with ``bc_steps: 4`` of ``steps: 12``. Its
steps (``bc_batch_size`` expert episodes each from the
:class:`~agentgym.trainers.sources.expert.ExpertSource`, learning rate ``bc_lr``,
:class:`~agentgym.trainers.scoring.bc.BCObjective`) come first; the learning phase starts from a
fresh optimizer state (``bc_optimizer: reset``; ``keep`` carries BC's Adam moments on, whose
momentum then moves the weights even where RL has no gradient). Evaluation runs after the last
BC step too, so the run reports BC alone beside BC + RL. This module holds the pieces: the
token layout of an expert episode, the expert data of a run, the NLL loss, the SOP eval hook.

With summarised context (``summary_budget``), the scripted expert is recorded under the same
budget, counted in the model's tokens, and writes its own summaries
(:func:`agentgym.policies.scripted.expert_summary`); every context of an expert episode is a
training sequence, the summary trained in the context that wrote it and given (prompt) in the
next, as in the RL rows.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from agentgym import ConfigError
from agentgym.policies import Generation, load_policy
from agentgym.rollout import (
    ChatFormat,
    ExpertTrajectory,
    Trajectory,
    evaluate_sop,
    load_experts,
    matcher_for_env,
    record_experts,
)

from .distributed import all_sum, barrier
from .parts import WaitsForSlot

logger = logging.getLogger(__name__)

PATIENT_S = 1800.0
"""Policy-turn timeout of this trainer's rollouts (episodes get four times as long)."""


def nll_loss(logp: Tensor, old_logp: Tensor, advantages: Tensor, mask: Tensor,
             eps_low: float = 0.0, eps_high: float = 0.0) -> tuple[Tensor, Tensor]:
    """Behaviour-cloning token loss ``-logp * A`` (``A = 1``: plain NLL); never clipped.

    Shapes: ``(B, T)`` log-probs, ``(B,)`` or ``(B, T)`` advantages. Returns ``(loss, clipped)``.
    """
    del old_logp, mask, eps_low, eps_high
    adv = advantages.unsqueeze(-1).expand_as(logp) if advantages.dim() == 1 else advantages
    return -logp * adv, torch.zeros_like(logp, dtype=torch.bool)


def expert_training_trajectory(expert: ExpertTrajectory, chat: ChatFormat, eos_id: int,
                               *, with_thought: bool = True) -> Trajectory:
    """The expert's episode in the engine's token layout (mask 1 on the expert's responses)."""
    traj = Trajectory(task_id=expert.task_id, group_id="expert", env_id=expert.env_id,
                      reward=1.0 if expert.success else 0.0)
    first = expert.steps[0]
    traj.messages = [{"role": "system", "content": expert.instructions},
                     {"role": "user", "content": first.observation}]
    traj.start(chat.prompt_ids(traj.messages))
    for t, step in enumerate(expert.steps):
        text = step.response(with_thought)
        ids = [*chat.encode(text), eos_id]
        if step.given:  # a summary opening this context: prompt, as in the episode's layout
            traj.add_env_tokens(ids)
        else:
            traj.add_generation(Generation(text=text, token_ids=ids, logprobs=[0.0] * len(ids)))
            traj.turns += 1
        traj.messages.append({"role": "assistant", "content": text})
        if t + 1 < len(expert.steps):
            nxt = expert.steps[t + 1]
            message = {"role": nxt.role, "content": nxt.observation}
            traj.add_env_tokens(chat.observation_ids(message, ids))
            traj.messages.append(message)
    traj.terminated = True
    traj.check()
    return traj


def experts_for(trainer: Any, path: str, split: str) -> dict[str, ExpertTrajectory]:
    """Expert trajectories by task id: from ``path``, else recorded once into the run folder."""
    cfg, dist = trainer.cfg, trainer.dist
    assert dist is not None, "setup() starts the process group first"
    if not path:
        folder = Path(cfg.output_dir) / f"experts-{split}"
        if dist.is_main and not (folder / "COMPLETE").exists():
            summary = cfg.summary_config()
            policy: Any = "scripted"
            config = None
            if summary is not None:  # the run's budget, counted in the model's tokens
                policy = load_policy("scripted", tokenizer=trainer.tokenizer)
                config = trainer.rollouts.rollout_config  # turn, token and summary limits
            counts = record_experts(cfg.env, folder, split=split, env_kwargs=cfg.env_kwargs,
                                    policy=policy, config=config)
            logger.info("recorded the scripted expert on %s: %s", split, counts)
            (folder / "COMPLETE").write_text("ok")
        barrier(dist)
        path = str(folder)
    experts = {e.task_id: e
               for e in load_experts(path, successful_only=not cfg.expert_failures)}
    if not experts:
        raise ConfigError(f"no {'' if cfg.expert_failures else 'successful '}expert "
                          f"trajectories in {path}")
    return experts


def chat_and_eos(tokenizer: Any) -> tuple[ChatFormat, int]:
    """The chat format of ``tokenizer`` and its end-of-turn id (the first one of a list)."""
    eos = tokenizer.eos_token_id
    return ChatFormat(tokenizer), int(eos[0] if isinstance(eos, list) else eos)


def patient_rollouts(trainer: Any) -> None:
    """Longer policy and episode timeouts than the engine's defaults (300 s, 600 s).

    Multi-turn episodes on a shared, oversubscribed CPU otherwise abort or truncate on the
    wall clock, which would score load as the model's failure. (A config key for these is
    requested from the trainer's owner.) With ``rollout_source: gateway`` there is no engine
    here (the agent's own limit is ``gateway.timeout_s``); the expert needs no agent either,
    it is recorded by :func:`experts_for` from the env alone.
    """
    policy = trainer.policy
    if isinstance(policy, WaitsForSlot):  # the hf policy's own wait for a batch slot
        policy.timeout_s = max(float(policy.timeout_s), PATIENT_S)
    if trainer.cfg.rollout_source == "gateway":
        return
    rollouts = trainer.rollouts
    rc = dataclasses.replace(rollouts.rollout_config, policy_timeout_s=PATIENT_S,
                             episode_timeout_s=4 * PATIENT_S)
    rollouts.rollout_config = rc
    for engine in (rollouts.train_engine, rollouts.eval_engine):
        engine.config = rc


class SOPEval:
    """Eval hook: SOP, TSR and PG of the current weights on the eval split's expert
    trajectories (``sop_eval``), beside the online success."""

    def __init__(self, trainer: Any) -> None:
        self.trainer = trainer
        self.experts: list[ExpertTrajectory] | None = None
        self.matcher: Any = None

    def evaluate(self, task_ids: list[str]) -> dict[str, float]:
        """SOP over this rank's held-out ``task_ids`` that have an expert trajectory."""
        t, cfg = self.trainer, self.trainer.cfg
        if self.experts is None:
            by_id = experts_for(t, cfg.eval_expert_data, cfg.eval_split)
            self.experts = [by_id[i] for i in task_ids if i in by_id]
            self.matcher = matcher_for_env(cfg.env, {**cfg.env_kwargs, "split": cfg.eval_split})
        t0 = time.perf_counter()
        local = evaluate_sop(t.policy, self.experts, self.matcher,
                             max_new_tokens=cfg.max_new_tokens, max_tokens=cfg.max_tokens,
                             seed=cfg.seed)
        n = local["sop_tasks"]
        assert t.dist is not None
        tsr, pg, total = all_sum([local["tsr"] * n, local["pg"] * n, n], t.dist)
        tsr, pg = tsr / max(total, 1), pg / max(total, 1)
        return {"sop": (tsr + pg) / 2, "tsr": tsr, "pg": pg, "sop_tasks": total,
                "sop_s": time.perf_counter() - t0}


__all__ = ["PATIENT_S", "SOPEval", "chat_and_eos", "expert_training_trajectory", "experts_for",
           "nll_loss", "patient_rollouts"]
