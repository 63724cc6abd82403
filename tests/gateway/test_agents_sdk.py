"""The OpenAI Agents SDK agent, unchanged, through the gateway and the env's MCP server.

The policy is the HF policy over a tiny Llama scripted to write the expert's three calls for
held-out task ``shop-bag-5`` (``lookup(bag)``, ``calc(4*5)``, ``answer(20)``), so the SDK's whole
loop runs (its chat-completions model, its MCP tool listing and calls, its tool messages sent
back) while the outcome is certain. The SDK needs its own environment
(``scripts/setup_agents_venv.sh``); without it the test skips.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentgym.policies.hf import HFPolicy
from agentgym.trainers import load_config

from .conftest import ScriptedLM, evaluate_keeping_trajectories

ROOT = Path(__file__).parents[2]
AGENT = Path(__file__).parent / "agents" / "openai_agents_sdk_agent.py"
AGENTS_PYTHON = ROOT / ".venv-agents" / "bin" / "python"
TASK, SCRIPT = "shop-bag-5", ["lookup(bag)", "calc(4*5)", "answer(20)"]


@pytest.fixture(scope="module")
def sdk_python() -> str:
    """``.venv-agents``'s interpreter, where the SDK is installed."""
    if not AGENTS_PYTHON.exists() or subprocess.run(
            [str(AGENTS_PYTHON), "-c", "import agents.mcp"], capture_output=True).returncode:
        pytest.skip("the OpenAI Agents SDK is not set up (scripts/setup_agents_venv.sh)")
    return str(AGENTS_PYTHON)


def test_agents_sdk_plays_a_held_out_task_token_exactly(sdk_python: str) -> None:
    from agentgym.trainers.gateway_rollouts import GatewayRollouts

    cfg = load_config(None, ["env=shop/price-v0", "max_new_tokens=12", "max_turns=4",
                             "rollout_source=gateway"])
    cfg.gateway = {"agent": [sdk_python, str(AGENT), "4"], "describe_tools": False,
                   "timeout_s": 300}
    model = ScriptedLM(SCRIPT)
    policy = HFPolicy(model, model.tok, device="cpu", batch_wait_ms=1.0)
    rollouts = GatewayRollouts(cfg, policy, 4)
    try:
        metrics, seen = evaluate_keeping_trajectories(rollouts, [TASK])
    finally:
        rollouts.close()
        policy.close()
    [traj] = seen  # one branch: every call extended the previous context
    assert not traj.aborted, traj.reason
    assert metrics["success_greedy"] == 1.0 and traj.reward == 1.0  # the env's replay
    assert traj.exact_tokens and not traj.info["gateway"]["mismatches"]
    assert traj.messages[0]["role"] == "system"  # the env's instructions, from MCP
    assert traj.info["gateway"]["texts"] == SCRIPT  # and the run stopped when the env said done
    assert len(traj.turn_spans) == 3
    assert sum(traj.loss_mask) == sum(b - a for a, b in traj.turn_spans)
