"""Self-play for the GRPO trainers: who plays the other seats, a pool of past checkpoints, and
win rates and Elo against named opponents in every held-out evaluation.

Applies to envs whose seats are played by opponents (:class:`agentgym.SeatEnv`, e.g.
``games/tictactoe-vs-scripted-v0``); the trainer passes ``opponent=`` to ``make`` for them:

- ``opponent: scripted`` / ``random``: the env's scripted player, or random legal moves;
- ``opponent: self``: the policy being trained plays every other seat with its live weights
  (its moves are not trained: each episode trains one seat, and the seat is drawn per episode,
  so both seats are learned);
- ``opponent: pool``: each episode draws its opponent from the scripted player and up to
  ``opponent_pool_size`` frozen copies of the policy, one taken every ``opponent_pool_every``
  steps (the oldest leaves first), as in self-play against past checkpoints.

A frozen checkpoint (a pool entry, ``start``) is a :func:`~.modeling.compact_copy`: its fp32
weights are kept in bfloat16 (half the bytes) and each layer upcasts its own to fp32 for its
forward only, so a checkpoint plays with its own weights rounded to bf16 (relative error <=
2**-9 per weight), at fp32 speed (a CPU without bf16 matmuls runs them several times slower). A
checkpoint that leaves the pool is released before the next one is taken. ``start`` is only
played in evaluations: its weights wait in a private file (bf16) and are loaded for each
evaluation and released after it, so they take no memory while the policy trains.

``eval_opponents`` (``scripted``, ``random``, ``start`` = the weights before training, ``self``)
adds ``winrate_<name>`` (a draw counts half), ``games_<name>`` and ``elo`` (the trained policy's
rating, anchored at the scripted player's 1000) to each evaluation row.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from agentgym import ConfigError
from agentgym.opponents import OpponentPool, PolicyOpponent, opponent_from_name
from agentgym.policies import SamplingParams
from agentgym.rollout import Engine, Outcome, elo_ratings, group_requests, outcome_score

from .distributed import unwrap
from .modeling import compact_copy
from .parts import Closeable

logger = logging.getLogger(__name__)

OPPONENTS = ("", "scripted", "random", "self", "pool")
EVAL_OPPONENTS = ("scripted", "random", "start", "self")


class SelfPlay:
    """The opponents of one training run (built by the trainer after its policy)."""

    def __init__(self, trainer: Any) -> None:
        cfg = trainer.cfg
        if cfg.opponent not in OPPONENTS:
            raise ConfigError(f"opponent must be one of {', '.join(map(repr, OPPONENTS))}, "
                              f"not {cfg.opponent!r}")
        unknown = [o for o in cfg.eval_opponents if o not in EVAL_OPPONENTS]
        if unknown:
            raise ConfigError(f"unknown eval_opponents {unknown}: use {', '.join(EVAL_OPPONENTS)}")
        self.trainer = trainer
        self.cfg = cfg
        self.sampling = SamplingParams(max_tokens=cfg.max_new_tokens, temperature=cfg.temperature,
                                       top_p=cfg.top_p)
        self.live = PolicyOpponent(trainer.policy, self.sampling, name="self")
        self.pool = OpponentPool([opponent_from_name("scripted")])
        self._frozen: list[Any] = []
        self._start_dir: tempfile.TemporaryDirectory[str] | None = None
        if "start" in cfg.eval_opponents:
            self._start_dir = tempfile.TemporaryDirectory(prefix="agentgym-start-")  # 0700
            model = unwrap(trainer.model)
            torch.save({k: v.detach().to(torch.bfloat16) if v.dtype == torch.float32
                        else v.detach().clone() for k, v in model.state_dict().items()},
                       self._start_file)
        self._engines: dict[str, Engine] = {}

    def env_kwargs(self) -> dict[str, Any]:
        """What the trainer adds to ``make``'s arguments for its training episodes."""
        cfg = self.cfg
        if cfg.opponent in ("", None):
            return {}
        if cfg.opponent == "self":
            return {"opponent": self.live}
        if cfg.opponent == "pool":
            return {"opponent": self.pool}
        return {"opponent": cfg.opponent}

    @property
    def _start_file(self) -> Path:
        assert self._start_dir is not None
        return Path(self._start_dir.name) / "start.pt"

    def load_start(self) -> PolicyOpponent:
        """``start``, the weights before training, as an opponent (close its policy after use):
        a compact copy of the model with the saved weights put back."""
        model = compact_copy(unwrap(self.trainer.model))
        model.load_state_dict(torch.load(self._start_file, map_location="cpu",
                                         weights_only=True))
        policy = self.trainer.shared_policy(model)
        self._frozen.append(policy)
        return PolicyOpponent(policy, self.sampling, name="start")

    def _release(self, opponent: Any) -> None:
        """Free a frozen opponent's weights now."""
        self._frozen[:] = [p for p in self._frozen if p is not opponent.policy]
        self._close(opponent.policy)

    def _snapshot(self, name: str) -> PolicyOpponent:
        """A frozen, bf16-stored copy of the current weights, as an opponent."""
        model = compact_copy(unwrap(self.trainer.model))
        policy = self.trainer.shared_policy(model)
        self._frozen.append(policy)
        return PolicyOpponent(policy, self.sampling, name=name)

    def after_step(self, step: int) -> None:
        """Add a checkpoint to the pool every ``opponent_pool_every`` steps."""
        cfg = self.cfg
        if cfg.opponent != "pool" or not cfg.opponent_pool_every or step % cfg.opponent_pool_every:
            return
        if cfg.opponent_pool_size < 1:
            return
        policies = [e.opponent for e in self.pool.entries if isinstance(e.opponent, PolicyOpponent)]
        while len(policies) >= cfg.opponent_pool_size:  # the oldest leaves before the next copy
            oldest = policies.pop(0)
            self.pool.entries[:] = [e for e in self.pool.entries if e.opponent is not oldest]
            self._release(oldest)  # freed now
        self.pool.add(self._snapshot(f"step-{step}"))
        logger.info("opponent pool: %s", ", ".join(self.pool.names))

    def _opponent(self, name: str) -> Any:
        if name == "start":
            return self.load_start()
        if name == "self":
            return self.live
        return name

    def evaluate(self, task_ids: list[str]) -> dict[str, float]:
        """Greedy held-out games against each of ``eval_opponents``: win rates and Elo."""
        out: dict[str, float] = {}
        outcomes: list[Outcome] = []
        trainer = self.trainer
        for name in self.cfg.eval_opponents:
            engine = self._engines.get(name)
            opponent = None
            if engine is None:
                opponent = self._opponent(name)
                kwargs = {**self.cfg.env_kwargs, "split": self.cfg.eval_split,
                          "max_turns": trainer.max_turns, "opponent": opponent}
                engine = Engine(self.cfg.env, trainer.policy, num_envs=self.cfg.num_envs,
                                config=trainer.rollouts.rollout_config, env_kwargs=kwargs)
                if name != "start":  # start's engine and weights live for one evaluation
                    self._engines[name] = engine
            base = trainer.rollouts.rollout_config
            engine.config = replace(base, sampling=base.sampling.with_(temperature=0.0))
            requests = group_requests(task_ids, 1, seed=self.cfg.seed + 7919, round=0)
            try:
                trajs = [t for t in engine.run(requests) if not t.aborted]
            finally:
                if name == "start":
                    engine.close()
                    self._release(opponent)
            scores = [outcome_score(str(t.info.get("outcome", "loss"))) for t in trajs]
            out[f"winrate_{name}"] = sum(scores) / len(scores) if scores else 0.0
            out[f"games_{name}"] = float(len(scores))
            outcomes += [("trained", name, s) for s in scores]
        if outcomes:
            anchor = "scripted" if "scripted" in self.cfg.eval_opponents else outcomes[0][1]
            out["elo"] = elo_ratings(outcomes, anchor=anchor).get("trained", 1000.0)
        return out

    @staticmethod
    def _close(policy: Any) -> None:
        if isinstance(policy, Closeable):
            policy.close()

    def close(self) -> None:
        """Close the evaluation engines and the frozen policies."""
        for engine in self._engines.values():
            engine.close()
        for policy in self._frozen:
            self._close(policy)
        if self._start_dir is not None:
            self._start_dir.cleanup()


__all__ = ["EVAL_OPPONENTS", "OPPONENTS", "SelfPlay"]
