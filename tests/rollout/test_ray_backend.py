"""``backend="ray"``: env workers in Ray actors give the asyncio backend's results (slow)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig

pytestmark = pytest.mark.slow

GAME = "textgames/guess-number-v0"


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """A local two-CPU Ray instance, shut down after the module."""
    ray = pytest.importorskip("ray")
    # a new local cluster even where `ray start` left /tmp/ray/ray_current_cluster behind
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _strip(trajs: list[Any]) -> list[dict[str, Any]]:
    """Trajectories without timings and the random ids the parser gives tool calls."""
    out = []
    for t in trajs:
        d = {**t.to_dict(), "timings": None}
        for r in d["info"].get("tool_results", []):
            r["call_id"] = None
        out.append(d)
    return out


def _bisect(messages: list[dict[str, Any]], episode: Any) -> str:
    lo, hi = 1, 100
    for m in messages:
        if m["role"] == "assistant":
            guess = int(m["content"].split('"number": ')[1].split("}")[0])
        elif m["role"] == "tool":
            lo, hi = (guess + 1, hi) if m["content"] == "higher" else (lo, guess - 1)
    call = {"name": "guess", "arguments": {"number": (lo + hi) // 2}}
    return f"<tool_call>{json.dumps(call)}</tool_call>"


def test_ray_matches_asyncio_on_the_same_seeds(local_ray: Any) -> None:
    reqs = [EpisodeRequest(task_id=f"guess-{n:03d}", seed=n) for n in (5, 20, 35, 50, 65, 90)]
    config = RolloutConfig(max_turns=5)
    results = {}
    for backend in ("asyncio", "ray"):
        for name, policy in (("scripted", "scripted"), ("bisect", FakePolicy(_bisect)),
                             ("random", "random?seed=3")):
            engine = Engine(GAME, policy, num_envs=3, config=config, backend=backend,
                            env_kwargs={"split": "test"})
            results[backend, name] = engine.run(reqs)
            engine.close()
    for name in ("scripted", "bisect", "random"):
        assert _strip(results["asyncio", name]) == _strip(results["ray", name])
    scripted = results["ray", "scripted"]
    assert any(t.success for t in scripted)
    assert any(t.truncated for t in scripted)  # binary search needs up to 7 turns, not 5


def test_a_killed_actor_aborts_one_episode(local_ray: Any) -> None:
    ray = local_ray
    victims: list[Any] = []

    engine = Engine(GAME, "scripted", num_envs=2, backend="ray", env_kwargs={"split": "test"})
    real_factory = engine.pool.factory

    async def factory() -> Any:
        worker = await real_factory()
        if not victims:
            victims.append(worker)
            ray.kill(worker.actor)  # the first env's process dies before its episode steps
        return worker

    engine.pool.factory = factory
    trajs = engine.run([EpisodeRequest(task_id=f"guess-{n:03d}") for n in (5, 10, 15, 20)])
    engine.close()
    aborted = [t for t in trajs if t.aborted]
    assert len(aborted) == 1 and "env reset failed" in aborted[0].reason
    assert sum(t.success for t in trajs) == 3
