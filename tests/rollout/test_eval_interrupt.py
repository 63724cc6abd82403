"""Ctrl-C in an ``hf`` evaluation stops promptly with the folder consistent and a resume hint."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from interrupting import interrupt_when


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.timeout(600)
def test_ctrl_c_stops_an_hf_eval_promptly(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    cmd = [sys.executable, "-m", "agentgym.cli", "eval", "arith/add-v0", "--policy",
           "hf:smollm2-135m", "--max-new-tokens", "256", "--temperature", "1",
           "--num-envs", "30", "--out", str(out)]

    def decoding(err: str) -> bool:  # run.json is written after the checks: decoding starts
        return (out / "run.json").exists()

    # 3 s later: well inside a 256-token batch
    result = interrupt_when(cmd, decoding, tmp_path / "stderr.log", settle_s=3)
    err, stopped = result.stderr, result.stopped_s
    assert stopped < 10, f"stopped after {stopped:.1f} s"
    assert result.returncode == 130, err[-2000:]
    assert "interrupted" in err and "--resume" in err
    assert "terminate called" not in err and "Traceback" not in err
    records = out / "trajectories" / "trajectories.jsonl"
    if records.exists():  # every stored line is a whole record
        for line in records.read_text().splitlines():
            assert line.startswith("{") and line.endswith("}")

