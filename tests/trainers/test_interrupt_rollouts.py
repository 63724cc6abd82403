"""Ctrl-C while the real model is in its rollouts stops ``agentgym train`` within seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.timeout(600)
def test_ctrl_c_during_real_model_rollouts_stops_within_5_s(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "agentgym.cli", "train", "configs/grpo_arith_cpu.yaml",
           f"output_dir={out}", "eval_at_start=false", "max_new_tokens=256", "steps=2",
           "save_every=1"]
    log = tmp_path / "stderr.log"
    root = Path(__file__).resolve().parents[2]
    with open(log, "w") as err_file:
        proc = subprocess.Popen(cmd, cwd=root, env={**os.environ, "COLUMNS": "300"},
                                stdout=subprocess.DEVNULL, stderr=err_file,
                                preexec_fn=_default_sigint)
        try:
            deadline = time.monotonic() + 400
            while "trainable parameters" not in log.read_text():  # the model is loaded
                assert proc.poll() is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline
                time.sleep(0.1)
            time.sleep(10)  # inside the first step's rollouts (64 episodes of up to 256 tokens)
            assert not (out / "checkpoints").exists() or not any((out / "checkpoints").iterdir())
            os.kill(proc.pid, signal.SIGINT)
            t0 = time.monotonic()
            proc.wait(timeout=120)
            stopped = time.monotonic() - t0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    err = log.read_text()
    assert stopped < 5, f"stopped after {stopped:.1f} s"
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err and "--resume" in err
    assert "terminate called" not in err and "Traceback" not in err
    checkpoints = out / "checkpoints"
    assert not checkpoints.exists() or not any(checkpoints.iterdir())  # no half checkpoint


def _default_sigint() -> None:
    """Give the child the default SIGINT action: a job started by a non-interactive shell's
    ``&`` (CI runners, ``nohup``) inherits SIGINT ignored, and Ctrl-C could not reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
