"""Adaptive task sampling (VADE, DARS, DART) on numbers worked out by hand.

informativeness(p, G) = 1 - p^G - (1-p)^G:  p=0.5, G=2 -> 1 - 0.25 - 0.25 = 0.5;
  p=0.5, G=4 -> 1 - 2/16 = 0.875;  p=0 or 1 -> 0.
DARS with G=4, M=8: mean 0.25 -> 4 + round(4 * 0.75) = 7; mean 1 -> 4; mean 0 -> 8.
Posterior: prior Beta(1, 1); a group of 4 with 1 success, 2 failures and 1 aborted episode
  -> Beta(2, 3), mean 0.4.
"""

from __future__ import annotations

import pytest
import torch

from agentgym.rollout import Trajectory
from agentgym.trainers.config import load_config
from agentgym.trainers.curation import (
    CuratedSampler,
    dars_group_size,
    informativeness,
    make_sampler,
)
from agentgym.trainers.data import TaskSampler


def _group(task: str, rewards: list[float], round: int = 0, aborted: int = -1) -> list[Trajectory]:
    return [Trajectory(task_id=task, sample_idx=i, group_id=f"r{round}:{task}", reward=r,
                       token_ids=[1, 2, 3], loss_mask=[0, 1, 1], logprobs=[0, -1.0, -1.0],
                       versions=[-1, round, round], aborted=i == aborted)
            for i, r in enumerate(rewards)]


def test_informativeness_by_hand():
    assert informativeness(0.5, 2) == pytest.approx(0.5)
    assert informativeness(0.5, 4) == pytest.approx(0.875)
    assert informativeness(0.0, 4) == 0.0 and informativeness(1.0, 4) == 0.0


def test_dars_group_size_by_hand():
    assert dars_group_size(0.25, 4, 8) == 7
    assert dars_group_size(1.0, 4, 8) == 4
    assert dars_group_size(0.0, 4, 8) == 8
    assert dars_group_size(0.0, 4, 0) == 4  # off


def test_posterior_update_skips_aborted():
    s = CuratedSampler(["a", "b"], group_size=4)
    s.curate([_group("a", [1.0, 0.0, 0.0, 1.0], aborted=3)])
    assert s.posterior("a") == (2.0, 3.0)
    assert s.mean("a") == pytest.approx(0.4)
    assert s.posterior("b") == (1.0, 1.0)
    s.dars_max_group_size = 8
    assert s.group_sizes(["a", "b"]) == [4 + round(4 * 0.6), 6]  # [6, 6]: 2.4 rounds to 2


def test_vade_prefers_uncertain_tasks():
    s = CuratedSampler(["solved", "hopeless", "mixed"], mode="vade", group_size=4, seed=3)
    s.posteriors = {"solved": [60.0, 1.0], "hopeless": [1.0, 60.0], "mixed": [10.0, 10.0]}
    firsts = [s.take(1)[0] for _ in range(20)]
    assert firsts == ["mixed"] * 20
    assert sorted(s.take(3)) == ["hopeless", "mixed", "solved"]
    wrapped = s.take(7)  # n > tasks: the ranking repeats
    assert wrapped[0] == wrapped[3] == wrapped[6] == "mixed" and len(set(wrapped[:3])) == 3


def test_vade_draws_are_reproducible_and_resume_exactly(tmp_path):
    a = CuratedSampler([f"t{i}" for i in range(10)], mode="vade", group_size=4, seed=1,
                       dart_buffer=2)
    a.curate([_group("t1", [1.0, 0.0, 0.0, 0.0]), _group("t2", [1.0, 1.0, 1.0, 1.0])])
    a.take(3)
    torch.save({"sampler": a.state_dict()}, tmp_path / "rank-0.pt")
    b = CuratedSampler([f"t{i}" for i in range(10)], mode="vade", group_size=4, seed=1,
                       dart_buffer=2)
    b.load_state_dict(torch.load(tmp_path / "rank-0.pt", weights_only=False)["sampler"])
    assert b.posteriors == a.posteriors and b.draws == a.draws == 1
    assert b.buffer.items.keys() == a.buffer.items.keys() == {"t1"}
    for _ in range(3):
        assert a.take(4) == b.take(4)
    fail = [_group("t1", [0.0] * 4, round=5)]
    assert [t.to_dict() for t in a.curate(fail)[0]] == [t.to_dict() for t in b.curate(fail)[0]]


def test_dart_replays_a_rare_success_into_an_all_fail_group():
    s = CuratedSampler(["t"], group_size=4, dart_buffer=1)
    first = s.curate([_group("t", [1.0, 0.0, 0.0, 0.0], round=0)])
    assert s.posterior("t") == (2.0, 4.0)  # mean 1/3 < 0.5: the win is kept
    assert first[0][0].info == {}  # a group with a success is unchanged
    out = s.curate([_group("t", [0.0, 0.0, 0.0, 0.0], round=1)])[0]
    replay = out[3]
    assert replay.info["dart_replay"] is True and replay.reward == 1.0
    assert replay.group_id == "r1:t" and replay.sample_idx == 3
    assert replay.versions == [-1, 0, 0]  # keeps its (older) policy versions
    assert [t.reward for t in out[:3]] == [0.0, 0.0, 0.0]
    assert s.posterior("t") == (2.0, 8.0)  # the replay is not counted as a fresh outcome
    assert len(s.buffer.items["t"]) == 1
    # a group in which every episode was aborted is left alone
    aborted = _group("t", [0.0], round=2, aborted=0)
    assert s.curate([aborted])[0] == aborted


def test_dart_keeps_no_success_of_an_easy_task():
    s = CuratedSampler(["t"], group_size=4, dart_buffer=2)
    s.curate([_group("t", [1.0, 1.0, 1.0, 0.0])])  # Beta(4, 2): mean 2/3, not rare
    assert s.buffer.items == {}
    assert s.curate([_group("t", [0.0] * 4, round=1)])[0][3].reward == 0.0


def test_make_sampler_from_config():
    ids = ["a", "b", "c"]
    assert type(make_sampler(load_config(None, []), ids)) is TaskSampler
    s = make_sampler(load_config(None, ["task_sampling=vade", "group_size=4", "dart_buffer=2",
                                       "dars_max_group_size=8"]), ids)
    assert isinstance(s, CuratedSampler)
    assert (s.mode, s.group_size, s.dart_buffer, s.dars_max_group_size) == ("vade", 4, 2, 8)
    # a plain sampler's checkpoint loads into a curated one (priors start fresh)
    plain = TaskSampler(ids)
    plain.take(2)
    s.load_state_dict(plain.state_dict())
    assert (s.epoch, s.position, s.posteriors) == (0, 2, {})
    with pytest.raises(ValueError, match="uniform or vade"):
        CuratedSampler(ids, mode="greedy")
