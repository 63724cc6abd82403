"""``bc_grpo`` with ``rollout_source: gateway``: the expert is recorded without the engine's agent,
the BC step trains on it, and the GRPO step that follows runs the agent program through the
gateway."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentgym.trainers import load_config
from agentgym.trainers.bc import BCWarmupTrainer

pytest.importorskip("openai")

AGENT = str(Path(__file__).parent / "agents" / "openai_mcp_agent.py")


def test_bc_then_grpo_through_the_gateway(tmp_path: Path) -> None:
    cfg = load_config(None, [
        "algorithm=bc_grpo", "env=shop/price-v0", "model=agentgym.trainers.tiny:tiny_llama",
        "device=cpu", "rollout_source=gateway", "bc_steps=1", "bc_batch_size=2", "steps=2",
        "tasks_per_step=1", "group_size=2", "max_new_tokens=8", "max_turns=2", "lr=0.01",
        "micro_batch_size=4", "eval_every=0", "eval_at_start=false", "tensorboard=false",
        "progress=false", "torch_threads=1", "max_batch_size=8", "eval_tasks=1",
        f"output_dir={tmp_path / 'run'}"])
    cfg.gateway = {"agent": [sys.executable, AGENT, "2"], "timeout_s": 120}
    trainer = BCWarmupTrainer(cfg)
    trainer.setup()
    try:
        assert (tmp_path / "run" / "experts-train" / "COMPLETE").exists()
        bc = trainer.step()
        assert bc["bc_episodes"] == 2 and bc["bc_loss"] > 0
        version = trainer.policy.version
        rl = trainer.step()
        assert rl["episodes"] == 2 and rl["aborted"] == 0  # two agent runs through the gateway
        assert trainer.policy.version > version  # the gateway decodes from the updated weights
        assert trainer.state.step == 2
    finally:
        trainer.close()
