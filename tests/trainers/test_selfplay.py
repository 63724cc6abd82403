"""Self-play in the GRPO trainer on tic-tac-toe with the tiny model: a pool of frozen
checkpoints, agent-wise advantages, and win rates and Elo against named opponents."""

from __future__ import annotations

import json

import pytest

from agentgym.opponents import PolicyOpponent

GAME = ["env=games/tictactoe-vs-scripted-v0", "tasks_per_step=2", "group_size=4",
        "max_new_tokens=4", "eval_tasks=4", "eval_samples=0", "num_envs=4"]


def test_pool_self_play_trains_and_reports_win_rates(tiny_cfg, tmp_path) -> None:
    from agentgym.trainers import GRPOTrainer

    cfg = tiny_cfg(*GAME, "steps=2", "opponent=pool", "opponent_pool_every=1",
                   "opponent_pool_size=1", "advantage_scope=agent", "eval_every=2",
                   "eval_opponents=[scripted,start,random]", "save_every=0")
    trainer = GRPOTrainer(cfg)
    seen_pools: list[list[str]] = []
    original = trainer.step

    def step():  # type: ignore[no-untyped-def]
        out = original()
        seen_pools.append(list(trainer.selfplay.pool.names))
        return out

    trainer.step = step  # type: ignore[method-assign]
    result = trainer.train()
    # after step 1 the pool holds scripted + step-1; after step 2 the oldest checkpoint left
    assert seen_pools == [["scripted"], ["scripted", "step-1"]]
    assert trainer.selfplay is not None
    assert trainer.selfplay.pool.names == ["scripted", "step-2"]
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text()
            .splitlines()]
    last = [r for r in rows if r["kind"] == "eval"][-1]
    for name in ("scripted", "start", "random"):
        assert 0.0 <= last[f"winrate_{name}"] <= 1.0 and last[f"games_{name}"] == 4
    assert "elo" in last
    assert result.steps == 2


def test_self_opponent_is_the_live_policy_and_bad_names_are_refused(tiny_cfg) -> None:
    from agentgym import ConfigError
    from agentgym.trainers import GRPOTrainer
    from agentgym.trainers.selfplay import SelfPlay

    with pytest.raises(ConfigError, match="advantage_scope"):
        tiny_cfg(*GAME, "advantage_scope=seat")
    trainer = GRPOTrainer(tiny_cfg(*GAME, "opponent=self", "steps=1"))
    trainer.setup()
    try:
        kwargs = trainer.selfplay.env_kwargs()  # type: ignore[union-attr]
        assert isinstance(kwargs["opponent"], PolicyOpponent)
        assert kwargs["opponent"].policy is trainer.policy
        trainer.cfg.eval_opponents = ["nobody"]
        with pytest.raises(ConfigError, match="eval_opponents"):
            SelfPlay(trainer)
    finally:
        trainer.close()
