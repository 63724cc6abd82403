"""``kill -9`` in the middle of semi-online training, ``resume=true``: the same next steps.

As ``test_resume.py`` does for GRPO: a BC + semi-online run on the shop env with the tiny model
is killed as soon as its step-2 checkpoint exists (step 1 is BC, steps 2.. semi-online); the
resumed run must give the uninterrupted run's loss, gradient norm, log-probs and rewards.
Three subprocess runs: about a minute on an idle CPU, so it is marked ``slow``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

RUNNER = Path(__file__).with_name("run_semionline.py")
STEPS = 5
COMPARED = ("loss", "grad_norm", "logp_mean", "reward", "train_tokens", "step_samples")


def _cmd(out: Path, *extra: str) -> list[str]:
    return [sys.executable, str(RUNNER), f"steps={STEPS}", f"output_dir={out}", "save_every=1",
            *extra]


def _train_rows(out: Path) -> dict[int, dict]:
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    return {r["step"]: r for r in rows if r["kind"] == "train"}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1"}


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.timeout(3000)
def test_kill_mid_semi_online_and_resume_gives_the_same_next_steps(tmp_path):
    full, killed = tmp_path / "full", tmp_path / "killed"
    _run(_cmd(full))
    proc = subprocess.Popen(_cmd(killed), env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    marker = killed / "checkpoints" / "step-000002" / "COMPLETE"
    deadline = time.monotonic() + 900
    while not marker.exists():
        assert proc.poll() is None, "the run ended before its step-2 checkpoint"
        assert time.monotonic() < deadline, "no step-2 checkpoint in time"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    done = sorted(p.name for p in (killed / "checkpoints").iterdir() if (p / "COMPLETE").exists())
    resumed_from = int(done[-1].split("-")[1])
    assert resumed_from < STEPS, "the run finished before the kill"

    _run(_cmd(killed, "resume=true"))
    a, b = _train_rows(full), _train_rows(killed)
    assert sorted(b) == list(range(1, STEPS + 1))
    assert "bc_loss" in a[1] and "step_samples" in a[2]  # BC first, then semi-online
    for step in range(resumed_from + 1, STEPS + 1):
        for key in COMPARED:
            assert b[step][key] == pytest.approx(a[step][key], rel=1e-5, abs=1e-7), (step, key)
    assert a[STEPS]["logp_mean"] != pytest.approx(a[2]["logp_mean"], abs=1e-4)
