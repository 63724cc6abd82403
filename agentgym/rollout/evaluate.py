"""Evaluation runs: K samples of N held-out tasks, stored as they finish, then summarised.

:func:`run_eval` is what ``agentgym eval`` calls. The default split is ``test``. With an output
folder every trajectory is appended to a :class:`~agentgym.rollout.TrajectoryStore` inside it,
and ``resume=True`` skips the ``(task_id, sample_idx)`` pairs already stored (aborted episodes
are retried). Sampling is greedy for K = 1 and at temperature 1 for K > 1 unless told otherwise.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import TaskError
from ..policies.base import Policy, SamplingParams, derive_seed
from ..policies.loader import load_policy
from ..registry import make, spec
from .engine import Engine
from .episode import EpisodeRequest, RolloutConfig
from .metrics import per_task, summarize
from .store import TrajectoryStore
from .trajectory import Trajectory

ProgressCallback = Callable[[Trajectory], None]


@dataclass
class EvalConfig:
    """Everything that defines an evaluation run."""

    env_id: str
    """Registered env id or alias."""
    policy: str = "scripted"
    """Policy spec string (``hf:smollm2-135m``, ``openai:URL``, ``scripted``...)."""
    split: str = "test"
    """Task split; held-out by default."""
    n: int | None = None
    """Number of tasks (the first N of the split); all when None."""
    k: int = 1
    """Samples per task (pass@k uses them)."""
    out: str | None = None
    """Output folder for the store, results.json and the report."""
    resume: bool = False
    """Continue a run in ``out``, skipping stored episodes."""
    backend: str = "asyncio"
    """``asyncio`` or ``ray``."""
    num_envs: int = 8
    """Env instances in the pool (also the number of concurrent episodes)."""
    max_turns: int | None = None
    """Turn limit per episode; default: the env spec's, else 10."""
    max_tokens: int = 4096
    """Token budget of one episode."""
    max_new_tokens: int = 256
    """New tokens per model turn."""
    temperature: float | None = None
    """Sampling temperature; default 0 (greedy) for k = 1, else 1."""
    seed: int = 0
    """Base seed of env resets and sampling."""
    episode_timeout_s: float = 600.0
    """Wall-clock limit of one episode."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Extra keyword arguments for ``agentgym.make``."""


def select_tasks(
    env_id: str, split: str, n: int | None, env_kwargs: dict[str, Any] | None = None
) -> list[str | None]:
    """Task ids of ``split`` (the first ``n``); ``[None] * n`` for envs without a task set.

    The ids come from an env instance when it exposes ``task_set`` (a variant may filter the
    family's tasks, e.g. by difficulty), else from the spec's task loader.
    """
    env = make(env_id, **{"split": split, **(env_kwargs or {})})
    try:
        own = getattr(env.unwrapped, "task_set", None)
    finally:
        env.close()
    if own is not None:
        ids = own.ids()
        return list(ids[:n] if n is not None else ids)
    tasks = spec(env_id).load_tasks()
    if tasks is None:
        if n is None:
            raise TaskError(f"{env_id} has no task set; pass -n to choose how many episodes")
        return [None] * n
    ids = tasks.split(split).ids()
    return list(ids[:n] if n is not None else ids)


def build_requests(task_ids: list[str | None], k: int, seed: int) -> list[EpisodeRequest]:
    """K requests per task; task-less envs are told apart by their reset seed."""
    out = []
    for i, task_id in enumerate(task_ids):
        name = task_id if task_id is not None else f"seed-{i}"
        for j in range(k):
            out.append(EpisodeRequest(task_id=task_id, sample_idx=j, group_id=name,
                                      seed=derive_seed(seed, name, j)))
    return out


async def arun_eval(
    config: EvalConfig, *, policy: Policy | None = None, progress: ProgressCallback | None = None,
    on_start: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run the evaluation and return the results dict (also written to ``out``)."""
    env_spec = spec(config.env_id)
    task_ids = await asyncio.to_thread(
        select_tasks, config.env_id, config.split, config.n, config.env_kwargs)
    requests = build_requests(task_ids, config.k, config.seed)
    store = TrajectoryStore(Path(config.out) / "trajectories", resume=config.resume) \
        if config.out else None
    done = store.done_keys() if store is not None else set()
    todo = [r for r in requests if (r.task_id, r.sample_idx) not in done]
    if on_start is not None:
        on_start(len(requests), len(requests) - len(todo))
    temperature = config.temperature if config.temperature is not None else (
        0.0 if config.k == 1 else 1.0)
    rollout = RolloutConfig(
        max_turns=config.max_turns or env_spec.max_turns or 10, max_tokens=config.max_tokens,
        episode_timeout_s=config.episode_timeout_s, seed=config.seed,
        sampling=SamplingParams(max_tokens=config.max_new_tokens, temperature=temperature),
    )
    the_policy = policy or load_policy(config.policy)
    engine = Engine(
        env_spec.id, the_policy, config=rollout, num_envs=config.num_envs,
        env_kwargs={"split": config.split, **config.env_kwargs}, backend=config.backend,
    )
    fresh: list[Trajectory] = []

    def record(traj: Trajectory) -> None:
        if store is not None:
            store.append(traj)
        fresh.append(traj)
        if progress is not None:
            progress(traj)

    t0 = time.monotonic()
    try:
        await engine.arun(todo, on_result=record)
    finally:
        await engine.aclose()
        if store is not None:
            store.close()
    wall = time.monotonic() - t0
    if store is not None:
        with TrajectoryStore(store.root, resume=True) as reopened:
            trajs = list(reopened)
    else:
        trajs = fresh
    wanted = {(r.task_id, r.sample_idx) for r in requests}
    trajs = [t for t in trajs if (t.task_id, t.sample_idx) in wanted]
    metrics = summarize(trajs, config.k)
    metrics["wall_s"] = wall
    metrics["engine"] = engine.stats.to_dict()
    results = {
        "config": {**asdict(config), "env_id": env_spec.id, "temperature": temperature},
        "policy": the_policy.describe(),
        "metrics": metrics,
        "per_task": per_task(trajs),
    }
    if config.out:
        from .report import write_results

        write_results(Path(config.out), results, trajs)
    return results


def run_eval(config: EvalConfig, **kwargs: Any) -> dict[str, Any]:
    """Sync twin of :func:`arun_eval`."""
    return asyncio.run(arun_eval(config, **kwargs))


__all__ = ["EvalConfig", "arun_eval", "build_requests", "run_eval", "select_tasks"]
