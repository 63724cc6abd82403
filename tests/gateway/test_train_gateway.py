"""``rollout_source: gateway``: the trainer runs agent programs, trains on what they recorded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentgym.trainers import GRPOTrainer, load_config

pytest.importorskip("openai")

AGENT = str(Path(__file__).parent / "agents" / "openai_mcp_agent.py")
TINY = [
    "env=shop/price-v0", "model=agentgym.trainers.tiny:tiny_llama", "device=cpu",
    "tasks_per_step=1", "group_size=2", "max_new_tokens=8", "max_turns=2", "lr=0.01",
    "micro_batch_size=4", "eval_every=0", "eval_at_start=false", "tensorboard=false",
    "progress=false", "torch_threads=1", "max_batch_size=8", "steps=1", "eval_tasks=1",
    "rollout_source=gateway",
]


def _trainer(tmp_path: Path, agent: list[str], **gateway: object) -> GRPOTrainer:
    cfg = load_config(None, [*TINY, f"output_dir={tmp_path / 'run'}"])
    cfg.gateway = {"agent": agent, "timeout_s": 120, **gateway}
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    return trainer


def test_a_real_agent_program_trains_through_the_gateway(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgym.trainers import gateway_rollouts

    started: list[str | None] = []
    real = gateway_rollouts.mcp_command

    def counting(env_id: str, **kw: object) -> list[str]:
        started.append(kw.get("split"))  # type: ignore[arg-type]
        return real(env_id, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(gateway_rollouts, "mcp_command", counting)
    trainer = _trainer(tmp_path, [sys.executable, AGENT, "2"])
    try:
        result = trainer.rollouts.groups(trainer._task_ids("train")[:1], 0)
        assert [len(g) for g in result.groups] == [2] and result.aborted == 0
        for t in (t for g in result.groups for t in g):
            assert t.exact_tokens and t.turns >= 1 and t.token_ids[: len(t.prompt_ids)]
            assert sum(t.loss_mask) == sum(b - a for a, b in t.turn_spans) > 0
        metrics = trainer.step()
        assert metrics["episodes"] == 2 and metrics["aborted"] == 0
        assert started == ["train"]  # concurrent agents share one MCP server per split
    finally:
        trainer.close()


def test_crashing_and_hanging_agents_are_aborted_with_the_reason(tmp_path: Path) -> None:
    crash = [sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"]
    trainer = _trainer(tmp_path, crash, mcp=False)
    try:
        [group] = trainer.rollouts.groups(trainer._task_ids("train")[:1], 0).groups
        assert all(t.aborted and "status 3" in t.reason and "boom" in t.reason for t in group)
        trainer.rollouts.settings = type(trainer.rollouts.settings)(
            agent=(sys.executable, "-c", "import time; time.sleep(600)"), timeout_s=2, mcp=False)
        [group] = trainer.rollouts.groups(trainer._task_ids("train")[:1], 1).groups
        assert all(t.aborted and t.reason.startswith("agent hung") for t in group)
    finally:
        trainer.close()


def test_the_async_trainer_with_the_gateway_is_refused_at_config_load() -> None:
    from agentgym import ConfigError

    with pytest.raises(ConfigError, match="async_rollouts.*gateway|gateway.*async_rollouts") as e:
        load_config(None, ["rollout_source=gateway", "async_rollouts=true"])
    assert "synchronous" in str(e.value)  # names what works
    load_config(None, ["rollout_source=gateway"])  # the synchronous trainer loads
    load_config(None, ["async_rollouts=true"])  # and the async trainer with the engine


def test_summarised_context_with_the_gateway_is_refused_at_config_load() -> None:
    from agentgym import ConfigError

    with pytest.raises(ConfigError, match="summary_budget.*rollout_source: engine"):
        load_config(None, ["rollout_source=gateway", "summary_budget=90"])
    load_config(None, ["summary_budget=90"])  # with the engine it loads


def test_a_negative_memory_limit_is_refused_by_name() -> None:
    from agentgym import ConfigError
    from agentgym.trainers.gateway_settings import AgentSettings

    with pytest.raises(ConfigError, match="memory_mb"):
        AgentSettings.from_config({"agent": "python agent.py", "memory_mb": -1})
    assert AgentSettings.from_config({"agent": "python agent.py", "memory_mb": 0}).memory_mb == 0
