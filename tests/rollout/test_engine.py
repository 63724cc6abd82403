"""The async engine with a fake policy: token bookkeeping, limits, groups, no barrier, faults."""

from __future__ import annotations

import time
from typing import Any

import pytest

from agentgym.policies import FakePolicy, FakeTokenizer, LogNormalLatency
from agentgym.rollout import (
    Engine,
    EpisodeRequest,
    LockstepEngine,
    RolloutConfig,
    Trajectory,
    group_requests,
)


def make_engine(env_id: str, policy: FakePolicy, **limits: Any) -> Engine:
    """An engine with a single env and the given RolloutConfig limits."""
    return Engine(env_id, policy, num_envs=1, config=RolloutConfig(**limits))


def _done_on_last(messages: list[dict[str, Any]], episode: Any) -> str:
    return f"turn {episode.turn} done"


def test_tokens_masks_and_template_agree(counter_env: str) -> None:
    policy = FakePolicy(_done_on_last)
    engine = Engine(counter_env, policy, num_envs=2)
    [traj] = engine.run([EpisodeRequest(task_id="t4")])  # 5 turns
    engine.close()
    assert traj.terminated and traj.turns == 5 and traj.reward == 1.0 and traj.success
    traj.check()
    # every policy call was conditioned on an exact prefix of the final sequence
    for call, (start, _) in zip(policy.calls, traj.turn_spans, strict=True):
        assert call["prompt_token_ids"] == traj.token_ids[:start]
    assert traj.token_ids[: len(traj.prompt_ids)] == traj.prompt_ids
    generated = {i for a, b in traj.turn_spans for i in range(a, b)}
    assert [i for i, m in enumerate(traj.loss_mask) if m] == sorted(generated)
    assert all(v == 0 for v in traj.versions if v != -1)
    assert all(v == -1 for v, m in zip(traj.versions, traj.loss_mask, strict=True) if not m)
    assert all(lp == -0.5 for lp, m in zip(traj.logprobs, traj.loss_mask, strict=True) if m)
    assert all(lp == 0.0 for lp, m in zip(traj.logprobs, traj.loss_mask, strict=True) if not m)
    # with a ChatML byte tokenizer, the deltas rebuild exactly the template of the messages
    # (the sequence ends at the generated <|im_end|>; the template adds its newline)
    tok = FakeTokenizer()
    assert tok.decode(traj.token_ids) + "\n" == tok.apply_chat_template(traj.messages)


def test_json_round_trip(counter_env: str) -> None:
    engine = Engine(counter_env, FakePolicy(_done_on_last), num_envs=1)
    [traj] = engine.run([EpisodeRequest(task_id="t2", sample_idx=3, group_id="g")])
    again = Trajectory.from_json(traj.to_json())
    assert again == traj
    assert again.turn_spans == traj.turn_spans and isinstance(again.turn_spans[0], tuple)


def test_turn_and_token_limits(counter_env: str) -> None:
    engine = make_engine(counter_env, FakePolicy(("x",)), max_turns=2)
    [t] = engine.run([EpisodeRequest(task_id="t4")])
    assert t.truncated and not t.terminated and t.turns == 2 and t.reason == "turn limit 2"
    engine = make_engine(counter_env, FakePolicy(("y" * 50,)), max_tokens=150)
    [t] = engine.run([EpisodeRequest(task_id="t4")])
    assert t.truncated and t.reason == "token limit 150" and len(t.token_ids) <= 150


def test_wall_clock_limit(counter_env: str) -> None:
    engine = make_engine(counter_env, FakePolicy(("x",), latency=0.3), episode_timeout_s=0.5)
    [t] = engine.run([EpisodeRequest(task_id="t4")])
    assert t.truncated and t.reason.startswith("time limit") and t.turns == 1


def test_policy_error_aborts_only_that_episode(counter_env: str) -> None:
    def flaky(messages: list[dict[str, Any]], episode: Any) -> str:
        if episode.task_id == "t1":
            raise ValueError("model exploded")
        return "done"

    engine = Engine(counter_env, FakePolicy(flaky), num_envs=2)
    trajs = engine.run([EpisodeRequest(task_id=t) for t in ("t0", "t1", "t2")])
    assert [t.aborted for t in trajs] == [False, True, False]
    assert "policy failed: ValueError: model exploded" in trajs[1].reason
    assert engine.pool.stats.discarded == 0  # the env was fine: kept


def test_pool_reuses_envs(counter_env: str) -> None:
    engine = Engine(counter_env, FakePolicy(("done",)), num_envs=3)
    trajs = engine.run([EpisodeRequest(task_id=f"t{i}") for i in range(10)])
    assert len(trajs) == 10 and all(t.terminated for t in trajs)
    assert engine.pool.stats.created == 3 and engine.pool.stats.reused == 7
    engine.run([EpisodeRequest(task_id="t0")])  # a second run (new event loop) reuses them too
    assert engine.pool.stats.created == 3


def test_groups_for_grpo(counter_env: str) -> None:
    engine = Engine(counter_env, FakePolicy(("done",)), num_envs=4)
    groups = engine.generate_groups(["t2", "t0", "t1"], group_size=3, seed=1)
    assert [g[0].task_id for g in groups] == ["t2", "t0", "t1"]
    for g in groups:
        assert [t.sample_idx for t in g] == [0, 1, 2]
        assert len({t.group_id for t in g}) == 1
    seeds = {c["sampling"].seed for c in engine.policy.calls}
    assert len(seeds) == len(engine.policy.calls)  # every turn of every sample its own seed
    again = engine.generate_groups(["t2"], group_size=1)
    assert again[0][0].group_id != groups[0][0].group_id  # a new round, new ids and seeds
    reqs = group_requests(["a"], 2, seed=0, round=5)
    assert [r.group_id for r in reqs] == ["r5:a", "r5:a"]


async def test_no_lockstep_barrier(counter_env: str) -> None:
    def slow_t0(messages: list[dict[str, Any]], episode: Any) -> str:
        return "done"

    policy = FakePolicy(slow_t0)
    latencies = {"t0": 0.6}

    async def agenerate(messages: list[dict[str, Any]], **kw: Any) -> Any:
        import asyncio

        await asyncio.sleep(latencies.get(kw["episode"].task_id, 0.01))
        return await FakePolicy.agenerate(policy, messages, **kw)

    policy.agenerate = agenerate  # type: ignore[method-assign]
    engine = Engine(counter_env, policy, num_envs=2)
    order = []
    t0 = time.monotonic()
    reqs = [EpisodeRequest(task_id="t0"), *(EpisodeRequest(task_id="t1", sample_idx=i)
                                           for i in range(5))]
    async for traj in engine.astream(reqs):
        order.append((traj.task_id, round(time.monotonic() - t0, 2)))
    await engine.aclose()
    # the fast episodes (2 turns each) all finished on the other lane while t0 was generating
    assert order[-1][0] == "t0"
    assert [o[0] for o in order[:5]] == ["t1"] * 5


def test_lockstep_matches_engine(counter_env: str) -> None:
    reqs = [EpisodeRequest(task_id=f"t{i}") for i in range(6)]
    policy = FakePolicy(_done_on_last, latency=LogNormalLatency(0.001, 0.5))
    a = Engine(counter_env, policy, num_envs=3).run(reqs)
    b = LockstepEngine(counter_env, policy, num_envs=3).run(reqs)
    strip = [{**t.to_dict(), "timings": None} for t in a]
    assert strip == [{**t.to_dict(), "timings": None} for t in b]


def test_images_kept_beside_messages(image_env: str) -> None:
    [t] = Engine(image_env, FakePolicy(("done",)), num_envs=1).run([EpisodeRequest(task_id="t1")])
    assert t.images == [b"\x89PNG fake \x01"]  # the first step's image; the second is final
    assert t.messages[-2]["images"] == [0] and t.messages[-2]["role"] == "user"


@pytest.mark.parametrize("backend", ["nope"])
def test_unknown_backend(counter_env: str, backend: str) -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        Engine(counter_env, FakePolicy(), backend=backend)


def test_rollout_config_defaults() -> None:
    cfg = RolloutConfig()
    assert cfg.max_turns is None and cfg.sampling.temperature == 1.0  # None: make() decides
