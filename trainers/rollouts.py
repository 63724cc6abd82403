"""Rollouts for the trainer: GRPO groups on the train split, evaluation on the held-out split.

Both run through :class:`agentgym.rollout.Engine` with one shared policy. Training groups get
ids ``r<round>:<task>`` and sampling seeds derived from ``(seed, round, task, sample)``; the
trainer saves the round counter, so a resumed run samples exactly what the uninterrupted run
would have. Evaluation always uses round 0 of its own seed, so every evaluation (before, during
and after training) sees the same tasks with the same sampling seeds.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

from agentgym.policies import Policy, SamplingParams
from agentgym.rollout import Engine, RolloutConfig, Trajectory, group_requests, tree_env_steps

from .config import TrainConfig
from .distributed import DistInfo, all_sum

logger = logging.getLogger(__name__)


@dataclass
class RolloutResult:
    """The groups of one rollout round and what producing them cost."""

    groups: list[list[Trajectory]]
    seconds: float
    generated_tokens: int
    aborted: int = 0
    dropped_groups: int = 0
    """Groups dropped by dynamic sampling (all rewards equal)."""
    extra: dict[str, Any] = field(default_factory=dict)


class Rollouts:
    """Train and eval engines over one env, sharing ``policy``."""

    def __init__(self, cfg: TrainConfig, policy: Policy, max_turns: int,
                 extra_env_kwargs: dict[str, Any] | None = None) -> None:
        """``extra_env_kwargs`` go to ``make`` beside ``cfg.env_kwargs`` (objects the config
        cannot name, such as a self-play opponent)."""
        self.cfg = cfg
        self.max_turns = max_turns
        self.extra_env_kwargs = dict(extra_env_kwargs or {})
        sampling = SamplingParams(
            max_tokens=cfg.max_new_tokens, temperature=cfg.temperature, top_p=cfg.top_p
        )
        self.rollout_config = RolloutConfig(
            max_turns=max_turns, max_tokens=cfg.max_tokens, sampling=sampling, seed=cfg.seed,
            policy_timeout_s=cfg.policy_timeout_s, env_timeout_s=cfg.env_timeout_s,
            episode_timeout_s=cfg.episode_timeout_s, summary=cfg.summary_config(),
        )
        self.train_engine = self._engine(policy, cfg.train_split)
        self.eval_engine = self._engine(policy, cfg.eval_split)

    def _engine(self, policy: Policy, split: str) -> Engine:
        kwargs = {**self.cfg.env_kwargs, **self.extra_env_kwargs, "split": split,
                  "max_turns": self.max_turns}
        return Engine(self.cfg.env, policy, config=self.rollout_config,
                      num_envs=self.cfg.num_envs, env_kwargs=kwargs,
                      backend=self.cfg.env_backend)

    def groups(self, task_ids: list[str], round: int,
               sizes: list[int] | None = None) -> RolloutResult:
        """``group_size`` episodes of each task (or ``sizes[i]`` of task ``i``: DARS), grouped
        per task in task order."""
        t0 = time.perf_counter()
        if self.cfg.rollout_mode == "tree":  # issue 41: groups grown by forking episodes
            groups = self.train_engine.generate_tree_groups(
                task_ids, self.cfg.group_size, width=self.cfg.tree_width,
                branch_turns=self.cfg.tree_branch_turns, seed=self.cfg.seed, round=round)
            trajs = [t for g in groups for t in g]
        else:
            counts = sizes if sizes is not None else [self.cfg.group_size] * len(task_ids)
            requests = [r for t, g in zip(task_ids, counts, strict=True)
                        for r in group_requests([t], g, seed=self.cfg.seed, round=round)]
            trajs = self.train_engine.run(requests) if requests else []
            by_group: dict[str, list[Trajectory]] = {}
            for t in trajs:
                by_group.setdefault(t.group_id, []).append(t)
            groups = [sorted(g, key=lambda t: t.sample_idx) for g in by_group.values()]
        return RolloutResult(
            groups=groups,
            seconds=time.perf_counter() - t0,
            generated_tokens=sum(t.num_generated_tokens for t in trajs),
            aborted=sum(t.aborted for t in trajs),
            extra={"env_steps": sum(tree_env_steps(g) for g in groups),
                   "summarised": sum(bool(t.segments) for t in trajs),
                   "summaries": sum(len(t.segments) for t in trajs)},
        )

    def evaluate(self, task_ids: list[str], dist_info: DistInfo) -> dict[str, float]:
        """Held-out success and reward, greedy and/or sampled, summed over data-parallel ranks.

        Aborted episodes (an infrastructure failure, not the model's) are left out of the success
        rate and reward and counted apart as ``aborted_<pass>``.
        """
        cfg, out = self.cfg, {}
        engine = self.eval_engine
        base = self.rollout_config
        passes = []
        if cfg.eval_greedy:
            passes.append(("greedy", base.sampling.with_(temperature=0.0), 1))
        if cfg.eval_samples > 0:
            passes.append(("sampled", base.sampling, cfg.eval_samples))
        t0 = time.perf_counter()
        for name, sampling, n in passes:
            engine.config = replace(base, sampling=sampling)
            requests = group_requests(task_ids, n, seed=cfg.seed + 7919, round=0)
            trajs = engine.run(requests) if requests else []
            done = [t for t in trajs if not t.aborted]  # infrastructure failures are not scored
            wins, reward, count, aborted, summarised = all_sum(
                [sum(t.success for t in done), sum(t.reward for t in done), len(done),
                 len(trajs) - len(done), sum(bool(t.segments) for t in done)], dist_info
            )
            out[f"success_{name}"] = wins / count if count else 0.0
            out[f"reward_{name}"] = reward / count if count else 0.0
            out[f"episodes_{name}"] = count
            out[f"aborted_{name}"] = aborted
            if base.summary is not None:  # SUPO: the share of episodes that summarised
                out[f"summarised_{name}"] = summarised / count if count else 0.0
        engine.config = base
        out["eval_s"] = time.perf_counter() - t0
        return out

    def close(self) -> None:
        """Close both engines' env pools."""
        for engine in (self.train_engine, self.eval_engine):
            try:
                engine.close()
            except Exception:  # closing must not hide the run's result
                logger.warning("closing a rollout engine failed", exc_info=True)


__all__ = ["RolloutResult", "Rollouts"]
