"""The trainer with every issue-17 option on: VADE + DARS + DART sampling, decoupled PPO with a
masked behaviour weight, version masking. It trains, and a run resumed from its step-1
checkpoint continues exactly as the uninterrupted run (the sampler's posteriors, draw counter and
success buffer are in the checkpoint)."""

from __future__ import annotations

import json

import pytest

from agentgym.trainers import GRPOTrainer

OPTIONS = ("task_sampling=vade", "dars_max_group_size=6", "dart_buffer=2", "decoupled_ppo=true",
           "behav_weight_mode=mask", "tis_cap=2.0", "max_version_lag=1", "save_every=1")
COMPARED = ("loss", "grad_norm", "logp_mean", "reward", "train_tokens", "episodes")


def _rows(trainer: GRPOTrainer) -> dict[int, dict]:
    path = trainer.metrics.path
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["step"]: r for r in rows if r["kind"] == "train"}


@pytest.mark.timeout(240)
def test_curated_offpolicy_run_trains_and_resumes_exactly(tiny_cfg, tmp_path):
    full = GRPOTrainer(tiny_cfg(*OPTIONS, "steps=2", f"output_dir={tmp_path / 'full'}"))
    full.train()
    a = _rows(full)
    assert sorted(a) == [1, 2]
    assert full.sampler.draws == 2 and full.sampler.posteriors  # VADE drew once per step
    # DARS at step 1: every task at the prior (mean 0.5) gets 4 + round(2 * 0.5) = 5 rollouts
    assert a[1]["episodes"] == 3 * 5
    assert all(r["train_tokens"] > 0 for r in a.values())  # masks left tokens to train on

    part = GRPOTrainer(tiny_cfg(*OPTIONS, "steps=1", f"output_dir={tmp_path / 'part'}"))
    part.train()
    resumed = GRPOTrainer(tiny_cfg(*OPTIONS, "steps=2", "resume=true",
                                   f"output_dir={tmp_path / 'part'}"))
    resumed.train()
    b = _rows(resumed)
    assert resumed.sampler.posteriors == full.sampler.posteriors
    for key in COMPARED:
        assert b[2][key] == pytest.approx(a[2][key], rel=1e-5, abs=1e-7), key
