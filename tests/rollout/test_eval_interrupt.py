"""Ctrl-C in an ``hf`` evaluation stops promptly with the folder consistent and a resume hint."""

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
def test_ctrl_c_stops_an_hf_eval_promptly(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    cmd = [sys.executable, "-m", "agentgym.cli", "eval", "arith/add-v0", "--policy",
           "hf:smollm2-135m", "--max-new-tokens", "256", "--temperature", "1",
           "--num-envs", "30", "--out", str(out)]
    log = tmp_path / "stderr.log"
    with open(log, "w") as err_file:  # a file, not a pipe: the progress bar never blocks
        proc = subprocess.Popen(cmd, env={**os.environ, "COLUMNS": "300"},
                                stdout=subprocess.DEVNULL, stderr=err_file,
                                preexec_fn=_default_sigint)
        try:
            deadline = time.monotonic() + 400
            while not (out / "run.json").exists():  # written after the checks: decoding starts
                assert proc.poll() is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline
                time.sleep(0.1)
            time.sleep(3)  # well inside a 256-token batch
            os.kill(proc.pid, signal.SIGINT)
            t0 = time.monotonic()
            proc.wait(timeout=120)
            stopped = time.monotonic() - t0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    err = log.read_text()
    assert stopped < 10, f"stopped after {stopped:.1f} s"
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err and "--resume" in err
    assert "terminate called" not in err and "Traceback" not in err
    records = out / "trajectories" / "trajectories.jsonl"
    if records.exists():  # every stored line is a whole record
        for line in records.read_text().splitlines():
            assert line.startswith("{") and line.endswith("}")


def _default_sigint() -> None:
    """Give the child the default SIGINT action: a job started by a non-interactive shell's
    ``&`` (CI runners, ``nohup``) inherits SIGINT ignored, and Ctrl-C could not reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
