"""Attacks on the socket between the ``vllm:`` policy and its engine worker.

The policy listens on a Unix socket for the worker it started; the key travels only on the
worker's standard input. Stand-in workers (small Python scripts run in place of vLLM's
interpreter) play the attacker: one that does not know the key, and one that answers garbage.
No vLLM is needed, so these run in the default suite.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from vllm_support import STUB_WORKER_START, stub_interpreter

from agentgym import PolicyError
from agentgym.policies.vllm_runtime import WorkerClient

IMPOSTOR = """
import os, sys
from multiprocessing.connection import Client
sys.stdin.buffer.readline()                  # the real key, ignored: play an outsider
try:
    conn = Client(os.environ["AGENTGYM_VLLM_ADDRESS"], family="AF_UNIX", authkey=b"guess")
except Exception:
    sys.exit(0)
conn.send_bytes(b'{"op": "ready", "ok": true}')
open(os.environ["MARKER"], "w").write("accepted")
"""

GARBAGE = STUB_WORKER_START + """
while True:
    try:
        conn.recv_bytes()
    except EOFError:
        break
    conn.send_bytes(os.environ["REPLY"].encode())
"""


def test_a_process_without_the_key_is_never_taken_for_the_worker(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    with pytest.raises(PolicyError):
        WorkerClient({}, python=stub_interpreter(tmp_path, IMPOSTOR), start_timeout_s=60,
                     env={"MARKER": str(marker)})
    assert not marker.exists()  # its connection was refused before it could say anything


@pytest.mark.parametrize("reply", ["not json", "[1, 2]", '{"id": "x"}', '{"id": 1, "ok": true}',
                                   '{"id": 1, "ok": true, "token_ids": "abc", "text": 5}'])
def test_garbage_from_the_worker_is_a_policy_error(tmp_path: Path, reply: str) -> None:
    from agentgym.policies import SamplingParams
    from agentgym.policies.vllm_engine import VLLMPolicy

    os.environ["REPLY"] = reply  # the stub inherits the policy's environment
    try:
        policy = VLLMPolicy("smollm2-135m", python=stub_interpreter(tmp_path, GARBAGE),
                            timeout_s=120)
    finally:
        del os.environ["REPLY"]
    folder = policy.worker._dir
    try:
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700  # no other user reaches the socket
        with pytest.raises(PolicyError):
            policy.generate([], sampling=SamplingParams(max_tokens=2), prompt_token_ids=[1, 2])
    finally:
        policy.close()
    assert not os.path.exists(folder)
