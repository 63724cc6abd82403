"""Collating trajectories, micro-batches and exact gradient accumulation."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from agentgym.trainers.batch import collate
from agentgym.trainers.data import TaskSampler, shard
from agentgym.trainers.losses import ppo_clip_loss
from agentgym.trainers.update import forward_logprobs


def _traj(ids, mask, lps):
    return SimpleNamespace(token_ids=ids, loss_mask=mask, logprobs=lps)


TRAJS = [
    _traj([1, 2, 3, 4, 5], [0, 0, 1, 1, 0], [0, 0, -0.5, -0.25, 0]),  # env token at the end
    _traj([1, 2, 3], [0, 1, 1], [0, -1.0, -2.0]),
    _traj([7, 8, 9, 10], [0, 0, 0, 1], [0, 0, 0, -3.0]),
]


def test_collate_shifts_targets_and_pads():
    b = collate(TRAJS, torch.tensor([1.0, -1.0, 0.5]), pad_id=0, loss_agg="token_mean")
    assert b.input_ids.tolist() == [[1, 2, 3, 4, 5], [1, 2, 3, 0, 0], [7, 8, 9, 10, 0]]
    assert b.attention_mask.sum(-1).tolist() == [5, 3, 4]
    assert b.mask.tolist() == [[0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 0]]
    assert b.behav_logp.tolist() == [[0, -0.5, -0.25, 0], [-1.0, -2.0, 0, 0], [0, 0, -3.0, 0]]
    assert b.weights.sum().item() == pytest.approx(1.0)
    assert b.num_tokens == 5


def test_micro_batches_trim_padding():
    b = collate(TRAJS, torch.zeros(3), pad_id=0, loss_agg="seq_mean_token_mean")
    parts = list(b.micro_batches(2))
    assert [len(p) for p in parts] == [2, 1]
    assert parts[1].input_ids.shape == (1, 4) and parts[1].mask.shape == (1, 3)


def test_gradient_accumulation_equals_full_batch():
    from agentgym.trainers.tiny import tiny_llama

    model, _ = tiny_llama()
    for agg in ("seq_mean_token_mean", "token_mean", "seq_mean_token_sum_norm"):
        b = collate(TRAJS, torch.tensor([1.0, -1.0, 0.5]), pad_id=0, loss_agg=agg, max_length=4)

        def grads(size, b=b):
            model.zero_grad()
            for mb in b.micro_batches(size):
                logp, _ = forward_logprobs(model, mb, 1.0)
                loss, _ = ppo_clip_loss(logp, logp.detach() - 0.1, mb.advantages, mb.mask)
                (loss * mb.weights).sum().backward()
            return torch.cat([p.grad.flatten() for p in model.parameters()])

        assert torch.allclose(grads(3), grads(1), atol=1e-6), agg


def test_task_sampler_epochs_and_cursor():
    s = TaskSampler(["a", "b", "c"], seed=1)
    first = s.take(2) + s.take(2)
    assert sorted(first[:3]) == ["a", "b", "c"]
    state = s.state_dict()
    nxt = s.take(4)
    s.load_state_dict(state)
    assert s.take(4) == nxt
    assert shard(["a", "b", "c", "d", "e"], 1, 2) == ["b", "d"]
    with pytest.raises(ValueError):
        TaskSampler([])


def test_shared_prompt_forward_equals_full_rows():
    from agentgym.trainers.tiny import tiny_llama

    model, _ = tiny_llama()
    p = [5, 6, 7, 8]
    trajs = [
        SimpleNamespace(prompt_ids=p, token_ids=p + [1, 2, 3], loss_mask=[0] * 4 + [1] * 3,
                        logprobs=[0.0] * 7),
        SimpleNamespace(prompt_ids=p, token_ids=p + [9], loss_mask=[0] * 4 + [1],
                        logprobs=[0.0] * 5),
        SimpleNamespace(prompt_ids=p, token_ids=p + [4, 4, 10, 11, 12],
                        loss_mask=[0] * 4 + [1, 1, 0, 0, 1], logprobs=[0.0] * 9),
        SimpleNamespace(prompt_ids=[1, 2], token_ids=[1, 2, 3], loss_mask=[0, 0, 1],
                        logprobs=[0.0] * 3),
    ]
    adv = torch.tensor([1.0, -1.0, 0.5, 0.2])

    def run(share):
        model.zero_grad()
        b = collate(trajs, adv, pad_id=258, loss_agg="token_mean", share_prompt=share)
        total, prefixes = 0.0, []
        for mb in b.micro_batches(8):
            logp, _ = forward_logprobs(model, mb, 0.7)
            loss = (logp * mb.weights).sum()
            loss.backward()
            total += loss.item()
            prefixes.append(mb.prefix_len)
        return total, torch.cat([q.grad.flatten() for q in model.parameters()]), prefixes

    full, shared = run(False), run(True)
    assert shared[2] == [4, 0] and full[2] == [0]  # different prompt lengths: two passes
    assert shared[0] == pytest.approx(full[0], abs=1e-5)
    assert torch.allclose(shared[1], full[1], atol=1e-5)


def test_micro_batches_pack_segments_with_equal_prompt_lengths():
    def traj(prompt, n):
        return SimpleNamespace(prompt_ids=prompt, token_ids=prompt + [1] * n,
                               loss_mask=[0] * len(prompt) + [1] * n,
                               logprobs=[0.0] * (len(prompt) + n))

    trajs = [traj([5, 6], 2), traj([5, 6], 3), traj([7, 8], 1), traj([7, 8], 2), traj([7, 8], 2),
             traj([9], 1), traj([9], 2), traj([3, 3], 4)]
    b = collate(trajs, torch.zeros(8), pad_id=0, loss_agg="token_mean", share_prompt=True)
    assert b.segments == [(0, 2, 2), (2, 5, 2), (5, 7, 1), (7, 8, 2)]
    mbs = list(b.micro_batches(4))
    assert [(len(m), m.prefix_len, m.prefix_index) for m in mbs] == [
        (2, 2, [0, 0]), (3, 2, [0, 0, 0]), (2, 1, [0, 0]), (1, 0, [0])]
    mbs = list(b.micro_batches(8))
    assert [(len(m), m.prefix_len, m.prefix_index) for m in mbs] == [
        (5, 2, [0, 0, 1, 1, 1]), (2, 1, [0, 0]), (1, 0, [0])]

    from agentgym.trainers.tiny import tiny_llama

    model, _ = tiny_llama()
    shared = torch.cat([torch.nn.functional.pad(forward_logprobs(model, m, 1.0)[0],
                                                (0, 5 - m.mask.shape[1])) for m in mbs])
    b.segments = []
    full = forward_logprobs(model, next(b.micro_batches(8)), 1.0)[0]
    assert torch.allclose(shared * b.mask, full * b.mask, atol=1e-5)
