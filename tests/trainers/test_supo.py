"""SUPO in the trainer: one advantage per episode, applied to every context's model tokens."""

from __future__ import annotations

import math

import pytest
import torch

from agentgym import ConfigError
from agentgym.rollout import Segment, Trajectory
from agentgym.trainers.advantages import grpo_advantages
from agentgym.trainers.batch import collate, context_rows

PROMPT = [1, 2]


def _episode(contexts: list[tuple[list[int], list[int]]], reward: float) -> Trajectory:
    """A trajectory whose contexts are ``(ids, mask)`` pairs (the last is the current one)."""
    *closed, (ids, mask) = contexts
    t = Trajectory(group_id="g", reward=reward, prompt_ids=list(PROMPT))
    t.segments = [Segment(token_ids=i, loss_mask=m, logprobs=[-0.5 * x for x in m],
                          versions=[x - 1 for x in m], prompt_len=2, summary="s")
                  for i, m in closed]
    t.token_ids, t.loss_mask = ids, mask
    t.logprobs, t.versions = [-0.5 * x for x in mask], [x - 1 for x in mask]
    return t


# episode A: a turn (3), an env token, the summary (5, 6) | new context: prompt, the summary as
# prompt (5, 6), an env token, a turn (7, 8). Episode B: one context, one turn (9).
A = _episode([([1, 2, 3, 4, 5, 6], [0, 0, 1, 0, 1, 1]),
              ([1, 2, 5, 6, 4, 7, 8], [0, 0, 0, 0, 0, 1, 1])], reward=1.0)
B = _episode([([1, 2, 9], [0, 0, 1])], reward=0.0)


def test_hand_computed_rows_advantages_and_weights() -> None:
    adv = grpo_advantages(torch.tensor([A.reward, B.reward]), ["g", "g"])
    # mean 0.5, sample std sqrt(0.25 + 0.25) = 0.7071: A gets +0.7071, B gets -0.7071
    a = 0.5 / math.sqrt(0.5)
    assert adv.tolist() == pytest.approx([a, -a], abs=1e-5)
    rows, row_adv = context_rows([A, B], adv)
    assert [r.token_ids for r in rows] == [[1, 2, 3, 4, 5, 6], [1, 2, 5, 6, 4, 7, 8], [1, 2, 9]]
    assert row_adv.tolist() == pytest.approx([a, a, -a], abs=1e-5)  # the summary row too
    b = collate(rows, row_adv, pad_id=0, loss_agg="seq_mean_token_mean", share_prompt=True)
    assert b.mask.tolist() == [[0, 1, 0, 1, 1, 0], [0, 0, 0, 0, 1, 1], [0, 1, 0, 0, 0, 0]]
    assert b.behav_logp[0].tolist() == [0, -0.5, 0, -0.5, -0.5, 0]
    # seq_mean_token_mean over rows: each context is a sequence (3 rows)
    assert b.weights[0, 3].item() == pytest.approx(1 / (3 * 3))
    assert b.weights[1, 4].item() == pytest.approx(1 / (2 * 3))
    assert b.weights[2, 1].item() == pytest.approx(1 / (1 * 3))
    assert b.segments == [(0, 3, 2)]  # every context starts with the episode's first prompt
    b_tok = collate(rows, row_adv, pad_id=0, loss_agg="token_mean")
    assert b_tok.weights.sum().item() == pytest.approx(1.0)
    assert b_tok.weights[0, 1].item() == pytest.approx(1 / 6)  # 6 model tokens in all
    # micro-batches hold whole rows: each row's ids equal one context exactly
    for size in (1, 2):
        seen = [row[: int(mb.attention_mask[i].sum())].tolist()
                for mb in b.micro_batches(size) for i, row in enumerate(mb.input_ids)]
        assert seen == [r.token_ids for r in rows]


def test_trajectories_without_summaries_are_their_own_rows() -> None:
    plain = _episode([([1, 2, 9], [0, 0, 1])], reward=1.0)
    rows, adv = context_rows([plain, B], torch.tensor([1.0, -1.0]))
    assert rows == [plain, B] and adv.tolist() == [1.0, -1.0]


def test_summary_settings_reach_the_rollouts(tiny_cfg) -> None:
    cfg = tiny_cfg("summary_budget=80", "summary_max_tokens=6", "summary_max=2")
    s = cfg.summary_config()
    assert (s.budget, s.max_tokens, s.max_summaries) == (80, 6, 2)
    assert tiny_cfg().summary_config() is None
    with pytest.raises(ConfigError):
        tiny_cfg("summary_budget=80", "summary_max=0")
    with pytest.raises(ConfigError):
        tiny_cfg("summary_budget=-1")


def test_segmented_episodes_train_and_summary_tokens_get_the_episode_advantage(tiny_cfg) -> None:
    from agentgym.trainers import GRPOTrainer

    cfg = tiny_cfg("summary_budget=80", "summary_max_tokens=6", "steps=1", "temperature=1.0",
                   "share_prompt=true")
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    try:
        groups, _ = trainer.collect()
        trajs = [t for g in groups for t in g]
        assert trajs and all(len(t.segments) == 1 for t in trajs), [t.reason for t in trajs]
        batch, kept = trainer.prepare(groups)
        rows, _ = context_rows(kept, torch.zeros(len(kept)))
        assert len(batch) == len(rows) == 2 * len(kept)
        expected = grpo_advantages(torch.tensor([t.reward for t in kept]),
                                   [t.group_id for t in kept])
        for i, t in enumerate(kept):
            seg = t.segments[0]
            a, b = seg.turn_spans[-1]  # the summary's span in the first context
            for r in (2 * i, 2 * i + 1):
                assert batch.advantages[r].item() == pytest.approx(expected[i].item(), abs=1e-5)
            row = batch.input_ids[2 * i, : len(seg.token_ids)].tolist()
            assert row == seg.token_ids
            assert batch.mask[2 * i, a - 1: b - 1].tolist() == [1.0] * (b - a)  # summary trained
        before = [p.detach().clone() for p in trainer.model.parameters()]
        metrics = trainer.update(batch)
        assert math.isfinite(metrics["loss"])
        changed = any(not torch.equal(p, q) for p, q in zip(before, trainer.model.parameters(),
                                                            strict=True))
        assert changed
    finally:
        trainer.close()
