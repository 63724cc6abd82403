"""Agent programs we did not write the frameworks of, unchanged, through the gateway and MCP.

SmolLM2-135M after behaviour cloning on shop/price-v0 (the `make demo` run's final weights)
plays held-out tasks; each agent talks only to ``OPENAI_BASE_URL`` and ``AGENTGYM_MCP_URL``.
The OpenAI Agents SDK runs from its own environment (``scripts/setup_agents_venv.sh``): it pins
``websockets<17``, which the project's environment does not meet.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentgym.trainers import load_config

from .conftest import evaluate_keeping_trajectories

AGENTS = Path(__file__).parent / "agents"
ROOT = Path(__file__).parents[2]
MODEL = Path(os.environ.get("AGENTGYM_AGENTS_MODEL", ROOT / "runs" / "demo" / "train" / "final"))
"""A model that solves shop/price-v0 (the `make demo` run's weights, or one named in the env)."""
AGENTS_PYTHON = ROOT / ".venv-agents" / "bin" / "python"


def _interpreter(needs: str, own_venv: bool) -> str:
    """The interpreter to run the agent with (the project's, or ``.venv-agents``'s); skips when
    it lacks ``needs``."""
    if not own_venv:
        pytest.importorskip(needs)
        return "python"
    if AGENTS_PYTHON.exists() and subprocess.run(
            [str(AGENTS_PYTHON), "-c", f"import {needs}"], capture_output=True).returncode == 0:
        return str(AGENTS_PYTHON)
    pytest.skip(f"{needs} is not installed (scripts/setup_agents_venv.sh sets up .venv-agents)")


@pytest.mark.slow
@pytest.mark.parametrize("agent,needs,own_venv", [
    ("openai_mcp_agent.py", "openai", False),
    ("langchain_mcp_agent.py", "langchain_openai", False),
    ("openai_agents_sdk_agent.py", "agents", True)])
def test_real_agent_solves_held_out_tasks_token_exactly(agent: str, needs: str,
                                                        own_venv: bool) -> None:
    python = _interpreter(needs, own_venv)
    if not MODEL.exists():
        pytest.skip(f"needs a model that solves the shop tasks in {MODEL} (`make demo` writes "
                    "runs/demo/train/final; or set AGENTGYM_AGENTS_MODEL)")
    from agentgym.policies.hf import HFPolicy
    from agentgym.trainers.gateway_rollouts import GatewayRollouts

    cfg = load_config(None, ["env=shop/price-v0", "max_new_tokens=12", "max_turns=4",
                             "rollout_source=gateway"])
    cfg.gateway = {"agent": [python, str(AGENTS / agent), "4"], "describe_tools": False,
                   "timeout_s": 600}
    policy = HFPolicy(str(MODEL), device="cpu", num_threads=1)
    rollouts = GatewayRollouts(cfg, policy, 4)
    try:
        metrics, seen = evaluate_keeping_trajectories(rollouts, _tests())
    finally:
        rollouts.close()
        policy.close()
    assert metrics["aborted_greedy"] == 0
    assert metrics["success_greedy"] == 1.0
    for t in seen:
        assert t.exact_tokens and len(t.turn_spans) >= 3  # lookup, calc, answer
        assert not t.info["gateway"]["mismatches"]


def _tests() -> list[str]:
    import agentgym

    return agentgym.spec("shop/price-v0").load_tasks().split("test").ids()[:2]
