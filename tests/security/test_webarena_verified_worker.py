"""The webarena-verified worker scores what a hostile page and model produced (the episode's
network log and answer): a worker that never answers, for whatever reason, is killed at the
scorer's deadline and the call is an infrastructure error (the episode aborts), instead of
holding the scorer's lock, and with it every later episode's scoring, for ever.

The worker here is a stand-in interpreter that reads nothing and never answers; the test waits
for the call to return (bounded), not for a fixed time.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agentgym.envs.webarena.verified_client import VerifiedScorer, VerifiedWorkerError


def test_a_worker_that_never_answers_is_killed_at_the_deadline(tmp_path: Path) -> None:
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexec sleep 600\n")
    python.chmod(0o755)
    scorer = VerifiedScorer(python, timeout_s=0.5)
    raised: list[BaseException] = []

    def call() -> None:
        try:
            scorer.call({"op": "score", "task_id": 44, "har": ["x" * 65536] * 8})
        except BaseException as e:  # noqa: BLE001 -- what the call raised is the verdict
            raised.append(e)

    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    caller.join(60)
    try:
        assert not caller.is_alive(), "the call still waits on a worker that never answers"
        [error] = raised
        assert isinstance(error, VerifiedWorkerError) and "0.5" in str(error), error
        with pytest.raises(VerifiedWorkerError):  # a fresh worker, killed the same way
            scorer.call({"op": "ping"})
    finally:
        scorer._stop()
