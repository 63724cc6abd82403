"""An agent program cannot outlive the run: closing the gateway rollouts ends every agent still
running, with the processes it started.

The hostile agent starts a child in its own process group (``setsid``), writes a marker, then
both sleep (never calling the model, never exiting). The run is closed while the episode is in
flight: both processes are gone (found on the host by the marker in their command lines, as the
jail's pids are its own) and the episode is aborted, instead of waiting out
``gateway.timeout_s``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from security.agent_procs import marked

from agentgym.policies.hf import HFPolicy
from agentgym.trainers import load_config
from agentgym.trainers.gateway_rollouts import GatewayRollouts
from agentgym.trainers.tiny import tiny_llama

MARK = "agentgym-close-linger-51d2"
LINGER = r"""
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", sys.argv[1]],
                         start_new_session=True)
time.sleep(600)
"""


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is gone too (its parent has not reaped it)
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_closing_the_run_kills_running_agents_and_their_children(tmp_path: Path) -> None:
    script = tmp_path / "linger.py"
    script.write_text(LINGER)
    cfg = load_config(None, ["env=shop/price-v0", "max_new_tokens=4", "max_turns=2",
                             "rollout_source=gateway", "group_size=1"])
    cfg.gateway = {"agent": [sys.executable, str(script), MARK], "timeout_s": 600,
                   "mcp": False}
    model, tokenizer = tiny_llama()
    policy = HFPolicy(model, tokenizer, device="cpu")
    rollouts = GatewayRollouts(cfg, policy, 2)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(rollouts.groups(["shop-bag-2"], 0)))
    pids: list[int] = []
    try:
        worker.start()
        deadline = time.monotonic() + 120
        while not any(b"time.sleep(600)" in _cmdline(p) for p in marked(MARK)):
            assert time.monotonic() < deadline, "the agent never started its child"
            time.sleep(0.1)
        pids = marked(MARK)  # the agent, its child (and, jailed, the jail's bwrap processes)
        assert len(pids) >= 2 and all(_alive(p) for p in pids)
    finally:
        rollouts.close()
        policy.close()
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids), "an agent process outlived the run"
    worker.join(60)
    assert not worker.is_alive()
    [group] = result[0].groups  # type: ignore[attr-defined]
    assert all(t.aborted for t in group)
