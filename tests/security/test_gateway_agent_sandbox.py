"""Gateway agent programs run contained (issue 35), against the real trainer rollouts and bwrap.

Before: every agent ran as the trainer with the trainer's whole environment, its
``OPENAI_API_KEY`` was the run-wide token (which posted rewards for any episode), it saw the
trainer and its sibling agents in ``/proc``, and a ``setsid`` child that kept stderr open made
the episode wait out ``timeout_s`` and then outlived the run.

The hostile agent makes one model call, then tries every value of its environment and every
file under its home and temporary folder as the bearer of its own episode's reward, looks for
the trainer's secret, the trainer's process and an env family's task data, and leaves a
``setsid`` child holding stderr. Its exit status says what it found (0: nothing). The scorer,
started after the agent, posts 0.25.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from security.agent_procs import marked

from agentgym.envs import webarena
from agentgym.policies.hf import HFPolicy
from agentgym.trainers import load_config
from agentgym.trainers.gateway_rollouts import GatewayRollouts
from agentgym.trainers.gateway_settings import sandbox_available
from agentgym.trainers.tiny import tiny_llama

MARK = "agentgym-linger-7f3a9c"

AGENT = r"""
import os, subprocess, sys, httpx
base = os.environ["OPENAI_BASE_URL"]
key = {"Authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")}
httpx.post(base + "/chat/completions", headers=key, timeout=300,
           json={"model": "m", "messages": [{"role": "user", "content": "answer(1)"}]})
if os.environ.get("TRAINER_SECRET_FOR_TEST"):
    sys.exit(4)
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        mine = int(pid) == os.getpid() or argv[0].endswith(b"bwrap")
        if not mine and b"pytest" in b" ".join(argv):
            sys.exit(5)  # the trainer (pytest) is visible
    except OSError:
        pass
if os.listdir(sys.argv[1]):
    sys.exit(7)  # the env family's task data is readable
values = set(os.environ.values())
for root in {os.path.expanduser("~"), os.environ.get("TMPDIR", "/tmp")}:
    for folder, _, files in os.walk(root):
        for f in files:
            try:
                values.update(open(os.path.join(folder, f), errors="ignore").read().split())
            except OSError:
                pass
reward = base.rsplit("/v1", 1)[0] + "/reward"
for v in values:
    if 0 < len(v) < 200 and v.isprintable() and " " not in v:
        r = httpx.post(reward, headers={"Authorization": "Bearer " + v}, json={"reward": 1.0})
        if r.status_code == 200:
            sys.exit(3)  # posted its own reward
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "MARK"],
                 start_new_session=True, stderr=sys.stderr)
""".replace("MARK", MARK)

SCORER = r"""
import os, httpx
r = httpx.post(os.environ["AGENTGYM_REWARD_URL"], json={"reward": 0.25},
               headers={"Authorization": "Bearer " + os.environ["AGENTGYM_REWARD_KEY"]})
r.raise_for_status()
"""


@pytest.mark.parametrize("sandbox", ["bubblewrap", "none"])
def test_an_agent_holds_no_reward_credential_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: str) -> None:
    if sandbox == "bubblewrap" and not sandbox_available():
        pytest.skip("bubblewrap cannot create namespaces here")
    agent, scorer = tmp_path / "agent.py", tmp_path / "scorer.py"
    agent.write_text(AGENT)
    scorer.write_text(SCORER)
    monkeypatch.setenv("TRAINER_SECRET_FOR_TEST", "do-not-leak")
    cfg = load_config(None, ["env=shop/price-v0", "max_new_tokens=4", "max_turns=2",
                             "rollout_source=gateway", "group_size=1"])
    tasks = str(Path(webarena.__file__).parent)  # the twin's tasks and their answers
    cfg.gateway = {"agent": [sys.executable, str(agent), tasks], "timeout_s": 120, "mcp": False,
                   "reward": "posted", "scorer": [sys.executable, str(scorer)],
                   "sandbox": sandbox}
    model, tokenizer = tiny_llama()
    policy = HFPolicy(model, tokenizer, device="cpu")
    rollouts = GatewayRollouts(cfg, policy, 2)
    try:
        t0 = time.monotonic()
        [group] = rollouts.groups(["shop-bag-2"], 0).groups
        took = time.monotonic() - t0
    finally:
        rollouts.close()
        policy.close()
    [traj] = group
    if sandbox == "none":  # no pid namespace: only the environment and the keys are contained
        assert traj.aborted and "status 5" in traj.reason, traj.reason  # saw the trainer
        return
    assert not traj.aborted, traj.reason
    assert traj.reward == 0.25  # the scorer's, never the agent's
    assert took < 100, "the episode waited for the agent's setsid child"
    deadline = time.monotonic() + 30
    while marked(MARK) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not marked(MARK), "a setsid child of the agent outlived its episode"

