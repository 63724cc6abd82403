"""Rollouts: the async multi-turn engine, the trajectory type and store, eval metrics.

>>> from agentgym.rollout import Engine, RolloutConfig                      # doctest: +SKIP
>>> engine = Engine("textgames/guess-number-v0", "hf:smollm2-135m")         # doctest: +SKIP
>>> groups = engine.generate_groups(["guess-005"], group_size=8)            # doctest: +SKIP
"""

from __future__ import annotations

from .chat import ChatFormat
from .elo import Outcome, elo_ratings, outcome_score
from .engine import Engine, group_requests
from .episode import Episode, EpisodeRequest, RolloutConfig
from .experts import ExpertStep, ExpertTrajectory, load_experts, record_experts, save_demonstrations
from .limits import DEFAULT_MAX_TURNS, resolve_max_turns
from .lockstep import LockstepEngine
from .metrics import pass_at_k, per_task, summarize, wilson_interval
from .pool import EnvPool, PoolTimeout
from .returns import EpisodeReturn
from .semionline import ActionMatcher, CopyResult, SemiOnlineRollout, StepSample, matcher_for_env
from .sop import evaluate_sop, sop_for_tasks, sop_metrics
from .stats import BusyTracker, EngineStats
from .store import TrajectoryStore, iter_jsonl
from .summary import SummaryConfig
from .trajectory import Segment, Trajectory, jsonable
from .tree import TreeShape, run_tree, tree_env_steps
from .workers import EnvWorker, LocalEnvWorker, env_expert_actions, local_worker_factory

__all__ = [
    "ActionMatcher",
    "BusyTracker",
    "ChatFormat",
    "CopyResult",
    "DEFAULT_MAX_TURNS",
    "Engine",
    "EngineStats",
    "EnvPool",
    "EnvWorker",
    "Episode",
    "EpisodeRequest",
    "EpisodeReturn",
    "ExpertStep",
    "ExpertTrajectory",
    "LocalEnvWorker",
    "LockstepEngine",
    "Outcome",
    "PoolTimeout",
    "RolloutConfig",
    "Segment",
    "SemiOnlineRollout",
    "StepSample",
    "SummaryConfig",
    "Trajectory",
    "TrajectoryStore",
    "TreeShape",
    "elo_ratings",
    "env_expert_actions",
    "evaluate_sop",
    "group_requests",
    "iter_jsonl",
    "jsonable",
    "load_experts",
    "local_worker_factory",
    "matcher_for_env",
    "outcome_score",
    "pass_at_k",
    "per_task",
    "record_experts",
    "resolve_max_turns",
    "run_tree",
    "save_demonstrations",
    "sop_for_tasks",
    "sop_metrics",
    "summarize",
    "tree_env_steps",
    "wilson_interval",
]
