"""Behaviour cloning (SFT on expert trajectories) as a warm-up before GRPO or semi-online RL.

The expert's episodes are turned into the same token layout the rollout engine produces
(:func:`expert_training_trajectory`): the first prompt from the chat template, each expert
response as if the model had generated it (its text then the end-of-turn token, ``loss_mask``
1), each observation as the template delta (``loss_mask`` 0). So the loss falls on the model's
tokens only, with exactly the masks RL trains on, and the update path is the RL one
(:func:`agentgym.trainers.update.policy_update`) with the ``nll`` loss (``-logp`` times an
advantage of 1, averaged over every trained token of the batch).

One config runs both phases: the first ``bc_steps`` of ``steps`` are behaviour-cloning steps
(``bc_batch_size`` expert episodes each, learning rate ``bc_lr``), the rest are the algorithm's
own steps, which start from a fresh optimizer state (``bc_optimizer: reset``; ``keep`` carries
BC's Adam moments on, whose momentum then moves the weights even where RL has no gradient).
Evaluation runs after the last BC step too, so the run reports BC alone beside BC + RL.
``algorithm: bc_grpo`` selects it (``bc_semi_online`` for the semi-online trainer).

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

from .batch import collate
from .distributed import all_sum, barrier
from .grpo import GRPOTrainer

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


def experts_for(trainer: GRPOTrainer, path: str, split: str) -> dict[str, ExpertTrajectory]:
    """Expert trajectories by task id: from ``path``, else recorded once into the run folder."""
    cfg = trainer.cfg
    if not path:
        folder = Path(cfg.output_dir) / f"experts-{split}"
        if trainer.dist.is_main and not (folder / "COMPLETE").exists():
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
        barrier(trainer.dist)
        path = str(folder)
    experts = {e.task_id: e
               for e in load_experts(path, successful_only=not cfg.expert_failures)}
    if not experts:
        raise ConfigError(f"no {'' if cfg.expert_failures else 'successful '}expert "
                          f"trajectories in {path}")
    return experts


class BCWarmupTrainer(GRPOTrainer):
    """GRPO (or a subclass's algorithm) preceded by ``bc_steps`` behaviour-cloning steps."""

    needs_experts = False
    """Whether the algorithm after the warm-up reads the train split's expert trajectories."""

    def setup(self) -> None:
        """The GRPO setup, plus the expert trajectories and the tokenization helpers."""
        super().setup()
        cfg = self.cfg
        self.chat = ChatFormat(self.tokenizer)
        eos = self.tokenizer.eos_token_id
        self.eos_id = int(eos[0] if isinstance(eos, list) else eos)
        self._patient_rollouts()
        self.experts: dict[str, ExpertTrajectory] = {}
        if cfg.bc_steps > 0 or self.needs_experts:
            self.experts = experts_for(self, cfg.expert_data, cfg.train_split)

    def _patient_rollouts(self) -> None:
        """Longer policy and episode timeouts than the engine's defaults (300 s, 600 s).

        Multi-turn episodes on a shared, oversubscribed CPU otherwise abort or truncate on the
        wall clock, which would score load as the model's failure. (A config key for these is
        requested from the trainer's owner.) With ``rollout_source: gateway`` there is no engine
        here (the agent's own limit is ``gateway.timeout_s``); the expert needs no agent either,
        it is recorded by :func:`experts_for` from the env alone.
        """
        if hasattr(self.policy, "timeout_s"):  # the hf policy's own wait for a batch slot
            self.policy.timeout_s = max(float(self.policy.timeout_s), PATIENT_S)
        if self.cfg.rollout_source == "gateway":
            return
        rc = dataclasses.replace(self.rollouts.rollout_config, policy_timeout_s=PATIENT_S,
                                 episode_timeout_s=4 * PATIENT_S)
        self.rollouts.rollout_config = rc
        for engine in (self.rollouts.train_engine, self.rollouts.eval_engine):
            engine.config = rc

    def extra_eval_metrics(self) -> dict[str, float]:
        """SOP, TSR and PG on the held-out tasks beside the online success, with ``sop_eval``
        (and the self-play win rates of the base trainer)."""
        return {**super().extra_eval_metrics(), **(self.sop() if self.cfg.sop_eval else {})}

    def sop(self) -> dict[str, float]:
        """SOP of the current weights on the eval split's expert trajectories (this rank's)."""
        cfg = self.cfg
        if not hasattr(self, "eval_experts"):
            by_id = experts_for(self, cfg.eval_expert_data, cfg.eval_split)
            self.eval_experts = [by_id[i] for i in self.eval_ids if i in by_id]
            self.sop_matcher = matcher_for_env(cfg.env, {**cfg.env_kwargs,
                                                         "split": cfg.eval_split})
        t0 = time.perf_counter()
        local = evaluate_sop(self.policy, self.eval_experts, self.sop_matcher,
                             max_new_tokens=cfg.max_new_tokens, max_tokens=cfg.max_tokens,
                             seed=cfg.seed)
        n = local["sop_tasks"]
        tsr, pg, total = all_sum([local["tsr"] * n, local["pg"] * n, n], self.dist)
        tsr, pg = tsr / max(total, 1), pg / max(total, 1)
        return {"sop": (tsr + pg) / 2, "tsr": tsr, "pg": pg, "sop_tasks": total,
                "sop_s": time.perf_counter() - t0}

    def bc_step(self) -> dict[str, float]:
        """One behaviour-cloning step on ``bc_batch_size`` expert episodes of the train split."""
        cfg = self.cfg
        ids = self.sampler.take(cfg.bc_batch_size)
        trajs = [expert_training_trajectory(context, self.chat, self.eos_id)
                 for i in ids if i in self.experts
                 for context in self.experts[i].all_contexts()]
        if not trajs:
            raise ConfigError("no expert trajectory for the sampled train tasks")
        batch = collate(trajs, torch.ones(len(trajs)), pad_id=self.pad_id,
                        loss_agg="token_mean", share_prompt=False)
        bc_cfg = dataclasses.replace(cfg, temperature=1.0, ppo_epochs=1, tis_cap=0.0,
                                     kl_coef=0.0)
        upd = self.update(batch, lr=cfg.bc_lr, loss_fn=nll_loss, cfg=bc_cfg)
        return {"bc_loss": upd["loss"], "bc_episodes": float(len(trajs)),
                "grad_norm": upd["grad_norm"], "lr": cfg.bc_lr,
                "train_tokens": upd["train_tokens"]}

    def rl_step(self) -> dict[str, float]:
        """One step of the algorithm that follows the warm-up (GRPO here)."""
        return GRPOTrainer.step(self)

    def step(self) -> dict[str, float]:
        """A BC step while ``state.step < bc_steps``, else an RL step."""
        cfg = self.cfg
        if self.state.step < cfg.bc_steps:
            metrics = self.bc_step()
            self.state.step += 1
            self.state.last_trajectories = []
            step = self.state.step
            at_eval = cfg.eval_every and (step % cfg.eval_every == 0 or step == cfg.steps)
            if step == cfg.bc_steps and cfg.eval_every and not at_eval:
                self.evaluate()  # BC alone, beside the final BC + RL figure
            return metrics
        if cfg.bc_steps and self.state.step == cfg.bc_steps and cfg.bc_optimizer == "reset":
            self.optimizer.state.clear()  # RL starts from fresh moments, not BC's momentum
        return self.rl_step()


__all__ = ["BCWarmupTrainer", "expert_training_trajectory", "experts_for", "nll_loss"]
