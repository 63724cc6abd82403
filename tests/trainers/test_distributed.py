"""Data-parallel training: 2 CPU ranks (gloo) under torchrun hold identical weights after a step."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

RUNNER = Path(__file__).with_name("run_tiny.py")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_two_gloo_ranks_hold_identical_weights_after_a_step(tmp_path):
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
           str(RUNNER), "steps=1", "tasks_per_step=4", f"output_dir={tmp_path / 'run'}",
           f"dump={tmp_path}"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    ranks = [torch.load(tmp_path / f"rank-{r}.pt") for r in (0, 1)]
    sys.path.insert(0, str(Path(__file__).parent))
    from agentgym.trainers.tiny import tiny_llama

    initial = tiny_llama()[0].state_dict()
    assert ranks[0].keys() == ranks[1].keys()
    for name in ranks[0]:
        assert torch.equal(ranks[0][name], ranks[1][name]), name
    moved = [n for n in initial if not torch.equal(initial[n], ranks[0][n])]
    assert moved, "the step changed no weight"
    trajs = (tmp_path / "run" / "checkpoints" / "step-000001" / "trajectories.jsonl").read_text()
    assert trajs.strip(), "rank 0 saved no trajectories"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_fsdp_on_two_gloo_ranks_matches_ddp_and_resumes(tmp_path):
    """FSDP2 shards the model over 2 CPU ranks: after a step both ranks' rollout replicas hold
    the weights DDP reaches, and a run resumes from an FSDP checkpoint."""
    runs = {}
    for mode in ("ddp", "fsdp"):
        out = tmp_path / mode
        out.mkdir()
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
               "2", str(RUNNER), "steps=2", "tasks_per_step=4", f"parallel={mode}",
               f"output_dir={out / 'run'}", f"dump={out}"]
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=280)
        assert done.returncode == 0, done.stderr[-3000:]
        runs[mode] = [torch.load(out / f"rank-{r}.pt") for r in (0, 1)]
    ddp, fsdp = runs["ddp"], runs["fsdp"]
    for name in ddp[0]:
        assert torch.equal(fsdp[0][name], fsdp[1][name]), name
        torch.testing.assert_close(fsdp[0][name], ddp[0][name], rtol=1e-4, atol=1e-6)
    ckpt = tmp_path / "fsdp" / "run" / "checkpoints" / "step-000002"
    assert (ckpt / "COMPLETE").exists() and (ckpt / "trainer.pt").exists()
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
           str(RUNNER), "steps=3", "tasks_per_step=4", "parallel=fsdp", "resume=true",
           f"output_dir={tmp_path / 'fsdp' / 'run'}"]
    done = subprocess.run(cmd, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True,
                          text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "fsdp" / "run" / "checkpoints" / "step-000003" / "COMPLETE").exists()
