"""Interruptible generation and APRIL partial rollouts on the tiny model, token by token.

- A weight update between two decode steps of a turn: the episode goes on, tokens before the
  update carry version 0 and the old weights' log-probs, tokens after it version 1 and come
  from the new weights (the next turn's log-probs match a teacher-forced pass of them).
- A spare group stopped in the middle of its second turn (the batch was full) continues in the
  next round after a weight update: its trajectory equals, token by token, the one an
  uninterrupted episode produces when the same update lands between its two turns.
"""

from __future__ import annotations

import asyncio
import copy
import itertools

import pytest
import torch

from agentgym.policies import HFPolicy, SamplingParams
from agentgym.rollout import Engine, Episode, EpisodeRequest, RolloutConfig, group_requests
from agentgym.rollout.workers import local_worker_factory
from agentgym.testing.latency import LatencyPolicy
from agentgym.trainers.async_rollouts import RolloutGenerator
from agentgym.trainers.tiny import tiny_llama

ENV = "tinytest/digits-v0"
CONFIG = RolloutConfig(max_turns=2, sampling=SamplingParams(max_tokens=8, temperature=1.0),
                       seed=3)


@pytest.fixture
def tiny_env():
    import tinyenv

    import agentgym
    from agentgym.plugins import reset_plugins

    tinyenv.register()
    yield
    reset_plugins()  # drops the test env so other tests see only the real registry
    agentgym.list_envs()


def _perturbed(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(7)
    return {k: v + 0.5 * torch.randn(v.shape, generator=gen) for k, v in
            model.state_dict().items()}


def _teacher_logp(model: torch.nn.Module, ids: list[int]) -> torch.Tensor:
    """log p(ids[i] | ids[:i]) for every i >= 1 (fp32, temperature 1)."""
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0, :-1].float()
    return torch.log_softmax(logits, -1).gather(1, torch.tensor(ids[1:])[:, None])[:, 0]


def test_update_mid_turn_continues_with_new_weights_and_versions(tiny_env):
    model, tok = tiny_llama()
    old = copy.deepcopy(model.state_dict())
    new = _perturbed(model)
    policy = HFPolicy(model, tok, max_batch_size=4, batch_wait_ms=1)
    forwards = itertools.count(1)

    def update_after_third_forward(module, args, kwargs, output):
        if next(forwards) == 3:  # between decode steps 3 and 4 of the first turn
            policy.load_state_dict(new)  # takes the decode lock (re-entrant here), bumps version

    handle = model.register_forward_hook(update_after_third_forward, with_kwargs=True)
    engine = Engine(ENV, policy, config=CONFIG, num_envs=1, env_kwargs={"split": "train"})
    try:
        [traj] = engine.run(group_requests(["t1"], 1, seed=3))
    finally:
        handle.remove()
        engine.close()
        policy.close()
    assert traj.terminated and traj.turns == 2, traj.reason
    (a1, b1), (a2, b2) = traj.turn_spans
    assert b1 - a1 >= 4, "the first turn must outlast the update"
    assert traj.versions[a1:b1] == [0, 0, 0] + [1] * (b1 - a1 - 3)
    assert traj.versions[a2:b2] == [1] * (b2 - a2)
    assert all(v == -1 for i, v in enumerate(traj.versions)
               if not (a1 <= i < b1 or a2 <= i < b2))
    assert traj.loss_mask == [int(a1 <= i < b1 or a2 <= i < b2)
                              for i in range(len(traj.token_ids))]
    recorded = torch.tensor(traj.logprobs)
    model.load_state_dict(old)
    before = _teacher_logp(model, traj.token_ids)
    model.load_state_dict(new)
    after = _teacher_logp(model, traj.token_ids)
    # tokens before the update: the old weights' log-probs; the second turn (a fresh prefill):
    # the new weights'. The first turn's later tokens attend to the cache the old weights built
    # (interruptible generation keeps the KV cache), so they match neither pass exactly, but
    # they were sampled from the new weights: the old weights' log-probs are off.
    for i in range(a1, a1 + 3):
        assert recorded[i].item() == pytest.approx(before[i - 1].item(), abs=2e-4), i
    for i in range(a2, b2):
        assert recorded[i].item() == pytest.approx(after[i - 1].item(), abs=2e-4), i
    assert not torch.allclose(recorded[a1 + 3:b1], before[a1 + 2:b1 - 1], atol=1e-2)


def _reference(model_state: dict, new: dict, request: EpisodeRequest) -> object:
    """The same episode uninterrupted, with the weight update between its two turns."""
    model, tok = tiny_llama()
    model.load_state_dict(model_state)
    policy = HFPolicy(model, tok, max_batch_size=4, batch_wait_ms=1)

    async def run():
        worker = await local_worker_factory(ENV, split="train")()
        ep = Episode(request, policy, CONFIG, ENV)
        try:
            await ep.begin(worker)
            await ep.env_turn(await ep.policy_turn())
            policy.load_state_dict(new)
            await ep.env_turn(await ep.policy_turn())
        finally:
            worker.close(5)
            await policy.aclose()
        return ep.result()

    try:
        return asyncio.run(run())
    finally:
        policy.close()


def test_partial_rollout_resumes_token_by_token(tiny_env):
    model, tok = tiny_llama()
    old = copy.deepcopy(model.state_dict())
    new = _perturbed(model)
    hf = HFPolicy(model, tok, max_batch_size=8, batch_wait_ms=1)

    def latency(ctx, version):  # t2's second turn is slow under the first weights; t3 always
        if ctx.task_id == "t2" and ctx.turn == 1 and version == 0:
            return 30.0
        if ctx.task_id == "t3":
            return 30.0
        return 0.3 if ctx.task_id == "t1" and ctx.turn == 1 else 0.0

    engine = Engine(ENV, LatencyPolicy(hf, latency), config=CONFIG, num_envs=8,
                    env_kwargs={"split": "train"})
    tasks = iter([["t1", "t2"], ["t3"]])
    gen = RolloutGenerator(engine, batch_size=1, eta=0, spare=1, seed=3, group_size=2,
                           total_rounds=2, take_tasks=lambda n: next(tasks))
    gen.start()
    try:
        first, _ = gen.take(0, timeout_s=60)
        assert [s.task_id for s in first.batch] == ["t1"]
        hf.load_state_dict(new)  # the trainer's update: version 1
        gen.advance(1)
        second, result = gen.take(1, timeout_s=60)
    finally:
        gen.stop()
        hf.close()
    assert [s.task_id for s in second.batch] == ["t2"] and second.batch[0].origin == 0
    assert gen.parked >= 2  # both t2 episodes were stopped in their second turn
    resumed = result.groups[0]
    requests = group_requests(["t2"], 2, seed=3, round=0)
    for traj, request in zip(resumed, requests, strict=True):
        ref = _reference(old, new, request)
        assert traj.token_ids == ref.token_ids
        assert traj.loss_mask == ref.loss_mask
        assert traj.versions == ref.versions
        assert traj.turn_spans == ref.turn_spans
        assert traj.logprobs == pytest.approx(ref.logprobs, abs=2e-4)
        assert traj.reward == ref.reward and traj.terminated
        (a1, b1), (a2, b2) = traj.turn_spans
        assert set(traj.versions[a1:b1]) == {0} and set(traj.versions[a2:b2]) == {1}
