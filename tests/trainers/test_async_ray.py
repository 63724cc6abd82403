"""The rollout generator over Ray env actors, with partial rollouts (slow: starts Ray).

Episodes of a multi-turn game are stopped between turns and continued in a later round while
their env lives in a Ray actor; with a deterministic policy every trajectory then equals the
uninterrupted episode's on the asyncio backend.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, RolloutConfig, group_requests
from agentgym.testing.latency import LatencyPolicy
from agentgym.trainers.async_rollouts import RolloutGenerator

pytestmark = pytest.mark.slow

GAME = "textgames/guess-number-v0"
CONFIG = RolloutConfig(max_turns=6)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """A local two-CPU Ray instance, shut down after the module."""
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _bisect(messages: list[dict[str, Any]], episode: Any) -> str:
    lo, hi, guess = 1, 100, 50
    for m in messages:
        if m["role"] == "assistant":
            guess = int(m["content"].split('"number": ')[1].split("}")[0])
        elif m["role"] == "tool":
            lo, hi = (guess + 1, hi) if m["content"] == "higher" else (lo, guess - 1)
    call = {"name": "guess", "arguments": {"number": (lo + hi) // 2}}
    return f"<tool_call>{json.dumps(call)}</tool_call>"


def _strip(t: Any) -> dict[str, Any]:
    d = {**t.to_dict(), "timings": None}
    for r in d["info"].get("tool_results", []):
        r["call_id"] = None
    return d


def test_partial_rollouts_on_ray_actors_equal_uninterrupted_episodes(local_ray: Any) -> None:
    def latency(ctx: Any, version: int) -> float:  # one slow game per round, from turn 2 on
        return 1.5 if ctx.task_id in ("guess-020", "guess-065") and ctx.turn >= 2 else 0.0

    policy = LatencyPolicy(FakePolicy(_bisect), latency)
    engine = Engine(GAME, policy, config=CONFIG, num_envs=6, backend="ray",
                    env_kwargs={"split": "test"})
    tasks = iter(["guess-005", "guess-020", "guess-035", "guess-050", "guess-065", "guess-090"])
    gen = RolloutGenerator(engine, batch_size=2, eta=1, spare=1, seed=0, group_size=2,
                           total_rounds=2, take_tasks=lambda n: [next(tasks) for _ in range(n)])
    gen.start()
    trained = []
    try:
        for step in range(2):
            rnd, result = gen.take(step, timeout_s=120)
            trained += [t for g in result.groups for t in g]
            gen.advance(step + 1)
    finally:
        gen.stop()
    assert gen.parked > 0  # slow games were stopped between turns
    assert len(trained) == 8 and len({(t.group_id, t.sample_idx) for t in trained}) == 8
    reference = Engine(GAME, FakePolicy(_bisect), config=CONFIG, num_envs=4,
                       env_kwargs={"split": "test"})
    try:
        for t in trained:
            origin = int(t.group_id.split(":")[0][1:])
            [req] = [r for r in group_requests([t.task_id], 2, seed=0, round=origin)
                     if r.sample_idx == t.sample_idx]
            [ref] = reference.run([req])
            assert _strip(t) == _strip(ref), t.group_id
    finally:
        reference.close()
