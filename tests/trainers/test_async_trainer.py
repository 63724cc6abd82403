"""The asynchronous trainer: eta = 0 is the synchronous trainer step for step, and a run killed
with SIGKILL in the middle resumes without losing or repeating a group, within the bound."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from agentgym.trainers import AsyncGRPOTrainer, GRPOTrainer
from agentgym.trainers.data import TaskSampler

HERE = Path(__file__).parent
COMPARED = ("loss", "grad_norm", "logp_mean", "reward", "success", "train_tokens", "episodes",
            "trained_episodes", "policy_version")


def _rows(trainer: GRPOTrainer) -> dict[int, dict]:
    rows = [json.loads(line) for line in trainer.metrics.path.read_text().splitlines()]
    return {r["step"]: r for r in rows if r["kind"] == "train"}


@pytest.mark.timeout(240)
def test_eta_zero_reproduces_the_synchronous_trainer(tiny_cfg, tmp_path):
    options = ("steps=3", "save_every=0", "task_sampling=vade", "dart_buffer=2")
    sync = GRPOTrainer(tiny_cfg(*options, f"output_dir={tmp_path / 'sync'}"))
    sync.train()
    asyn = AsyncGRPOTrainer(tiny_cfg(*options, "async_rollouts=true", "staleness_eta=0",
                                     f"output_dir={tmp_path / 'async'}"))
    asyn.train()
    a, b = _rows(sync), _rows(asyn)
    assert sorted(a) == sorted(b) == [1, 2, 3]
    for step in a:
        for key in COMPARED:
            assert b[step][key] == pytest.approx(a[step][key], rel=1e-6, abs=1e-9), (step, key)
        assert b[step]["staleness"] == 0
    assert asyn.sampler.posteriors == sync.sampler.posteriors
    for p, q in zip(sync.model.parameters(), asyn.model.parameters(), strict=True):
        assert torch.equal(p, q)


@pytest.mark.timeout(240)
def test_async_trainer_with_partial_rollouts_trains_within_the_bound(tiny_cfg, tmp_path):
    from run_async import SlowAsyncTrainer

    SlowAsyncTrainer.delay = 0.02
    eta, steps = 2, 4
    trainer = SlowAsyncTrainer(tiny_cfg("async_rollouts=true", f"staleness_eta={eta}",
                                        "partial_rollouts=2", f"steps={steps}", "save_every=0",
                                        "decoupled_ppo=true", "tis_cap=2.0",
                                        f"output_dir={tmp_path / 'run'}"))
    trainer.train()
    rows = [json.loads(line) for line in trainer.batch_log.read_text().splitlines()]
    assert [r["step"] for r in rows] == list(range(1, steps + 1))
    groups = [g for r in rows for g in r["groups"]]
    assert all(len(r["groups"]) == 3 for r in rows) and len(set(groups)) == len(groups)
    assert all(0 <= r["trained_version"] - r["started_version"] <= eta for r in rows)
    metrics = _rows(trainer)
    assert all(m["train_tokens"] > 0 and m["staleness"] <= eta for m in metrics.values())
    assert trainer.generator is not None and not trainer.generator._thread.is_alive()


def test_async_is_a_source_of_the_one_trainer_and_refuses_what_it_cannot_run(tiny_cfg):
    from agentgym import ConfigError
    from agentgym.trainers.async_grpo import async_trainer
    from agentgym.trainers.bc import BCWarmupTrainer

    class PluginTrainer(GRPOTrainer):
        """A plugin's GRPO variant."""

    assert async_trainer(PluginTrainer) is PluginTrainer  # no class is made at run time
    with pytest.raises(ConfigError, match="async_rollouts runs a schedule of one RL phase"):
        BCWarmupTrainer(tiny_cfg("async_rollouts=true", "algorithm=bc_grpo",
                                 "bc_steps=1")).setup()  # BC steps: refused before the model
    with pytest.raises(ConfigError, match="async_rollouts runs a schedule of one RL phase"):
        GRPOTrainer(tiny_cfg("async_rollouts=true", "phases=[{bc: 1}, {grpo: 2}]")).setup()
    with pytest.raises(ConfigError, match="asynchronous trainer"):
        AsyncGRPOTrainer(tiny_cfg()).setup()  # refused before the model loads
    with pytest.raises(ConfigError, match="partial_rollouts needs async_rollouts"):
        tiny_cfg("partial_rollouts=2")
    with pytest.raises(ConfigError, match="env_backend"):
        tiny_cfg("env_backend=threads")


def _expected_groups(steps: int, batch: int) -> list[list[str]]:
    import tinyenv

    sampler = TaskSampler(tinyenv.load_tasks().split("train").ids(), seed=0)
    return [[f"r{r}:{t}" for t in sampler.take(batch)] for r in range(steps)]


@pytest.mark.timeout(300)
def test_kill_9_mid_run_resumes_without_loss_or_duplicates(tiny_cfg, tmp_path):
    out = tmp_path / "run"
    eta, steps, delay = 1, 4, 0.2
    options = [f"output_dir={out}", f"staleness_eta={eta}", f"steps={steps}", "save_every=1"]
    proc = subprocess.Popen([sys.executable, str(HERE / "run_async.py"), str(delay), *options],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    marker = out / "checkpoints" / "step-000002" / "COMPLETE"
    deadline = time.monotonic() + 150
    try:
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "no step-2 checkpoint in time"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert not (out / "summary.json").exists()  # killed in the middle of the run
    state = torch.load(marker.parent / "rank-0.pt", weights_only=False)["sampler"]["async"]
    # admitted, untrained: round 2 (the next to train) and, when the generator got to it before
    # the checkpoint, round 3 (eta ahead); both states are valid and both must resume exactly
    indices = [r["index"] for r in state["rounds"]]
    assert indices in ([2], [2, 3]), indices
    assert state["next_round"] == indices[-1] + 1
    assert state["version"] == 2

    from run_async import SlowAsyncTrainer  # the same trainer, resumed in this process

    SlowAsyncTrainer.delay = delay
    SlowAsyncTrainer(tiny_cfg("async_rollouts=true", *options, "resume=true")).train()
    rows = [json.loads(line) for line in (out / "async_batches.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == list(range(1, steps + 1))  # each step logged once
    assert [r["groups"] for r in rows] == _expected_groups(steps, 3)  # none lost or repeated
    for r in rows:
        assert r["trained_version"] == r["step"] - 1
        assert r["trained_version"] - r["started_version"] <= eta  # the bound, across resume
        assert r["min_token_version"] >= r["trained_version"] - eta
    assert any(r["trained_version"] > r["started_version"] for r in rows)  # it ran ahead
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == steps


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_async_partial_on_two_gloo_ranks_holds_identical_weights(tmp_path):
    """torchrun, 2 CPU ranks (DDP): every rank runs its own generator on its share of the tasks
    (eta 1, one spare group); the ranks' weights stay identical."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
           str(HERE / "run_async.py"), "0.05", "steps=3", "tasks_per_step=4", "staleness_eta=1",
           "partial_rollouts=1", f"output_dir={out}", f"dump={tmp_path}"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    ranks = [torch.load(tmp_path / f"rank-{r}.pt") for r in (0, 1)]
    for name in ranks[0]:
        assert torch.equal(ranks[0][name], ranks[1][name]), name
    rows = [json.loads(line) for line in (out / "async_batches.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2, 3]
    assert all(r["trained_version"] - r["started_version"] <= 1 for r in rows)
