"""Ctrl-C while the real model is in its rollouts stops ``agentgym train`` within seconds."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from interrupting import interrupt_when


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.timeout(600)
def test_ctrl_c_during_real_model_rollouts_stops_within_5_s(tmp_path: Path) -> None:
    out = tmp_path / "run"
    checkpoints = out / "checkpoints"
    cmd = [sys.executable, "-m", "agentgym.cli", "train", "configs/grpo_arith_cpu.yaml",
           f"output_dir={out}", "eval_at_start=false", "max_new_tokens=256", "steps=2",
           "save_every=1"]

    def no_checkpoint_yet() -> None:  # still inside the first step's rollouts
        assert not checkpoints.exists() or not any(checkpoints.iterdir())

    # 10 s after the model is loaded: the first step's 64 episodes of up to 256 tokens
    result = interrupt_when(cmd, lambda err: "trainable parameters" in err,
                            tmp_path / "stderr.log", settle_s=10,
                            cwd=Path(__file__).resolve().parents[2],
                            before_signal=no_checkpoint_yet)
    err = result.stderr
    assert result.stopped_s < 5, f"stopped after {result.stopped_s:.1f} s"
    assert result.returncode == 130, err[-2000:]
    assert "interrupted" in err and "--resume" in err
    assert "terminate called" not in err and "Traceback" not in err
    no_checkpoint_yet()  # no half checkpoint
