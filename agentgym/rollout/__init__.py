"""Rollouts: the async multi-turn engine, the trajectory type and store, eval metrics.

>>> from agentgym.rollout import Engine, RolloutConfig                      # doctest: +SKIP
>>> engine = Engine("textgames/guess-number-v0", "hf:smollm2-135m")         # doctest: +SKIP
>>> groups = engine.generate_groups(["guess-005"], group_size=8)            # doctest: +SKIP
"""

from __future__ import annotations

from .chat import ChatFormat
from .engine import Engine, group_requests
from .episode import Episode, EpisodeRequest, RolloutConfig
from .limits import DEFAULT_MAX_TURNS, resolve_max_turns
from .lockstep import LockstepEngine
from .metrics import pass_at_k, per_task, summarize, wilson_interval
from .pool import EnvPool, PoolTimeout
from .stats import BusyTracker, EngineStats
from .store import TrajectoryStore, iter_jsonl
from .trajectory import Trajectory, jsonable
from .workers import EnvWorker, LocalEnvWorker, env_expert_actions, local_worker_factory

__all__ = [
    "DEFAULT_MAX_TURNS",
    "BusyTracker",
    "ChatFormat",
    "Engine",
    "EngineStats",
    "EnvPool",
    "EnvWorker",
    "Episode",
    "EpisodeRequest",
    "LocalEnvWorker",
    "LockstepEngine",
    "PoolTimeout",
    "RolloutConfig",
    "Trajectory",
    "TrajectoryStore",
    "env_expert_actions",
    "group_requests",
    "iter_jsonl",
    "jsonable",
    "local_worker_factory",
    "pass_at_k",
    "per_task",
    "resolve_max_turns",
    "summarize",
    "wilson_interval",
]
