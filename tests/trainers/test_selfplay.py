"""Self-play in the GRPO trainer on tic-tac-toe with the tiny model: a pool of frozen
checkpoints, agent-wise advantages, and win rates and Elo against named opponents."""

from __future__ import annotations

import json

import pytest
import torch

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


def test_a_saved_checkpoint_is_evaluated_as_the_run_evaluated_it(tiny_cfg, tmp_path) -> None:
    """``benchmarks/selfplay.py --checkpoint``: a run killed before its last evaluation is
    evaluated from its checkpoint; the figures equal the ones the run printed at that step."""
    import sys
    from pathlib import Path

    from agentgym.trainers import GRPOTrainer

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from selfplay import checkpoint_trainer, evaluate_checkpoint

    cfg = tiny_cfg(*GAME, "steps=2", "opponent=pool", "opponent_pool_every=1",
                   "opponent_pool_size=1", "eval_every=2", "eval_at_start=false",
                   "eval_opponents=[scripted,start]", "save_every=2", "lr=1e-2")
    trained = GRPOTrainer(cfg)
    trained.train()
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text()
            .splitlines()]
    printed = [r for r in rows if r["kind"] == "eval"][-1]
    again = evaluate_checkpoint(tmp_path / "run" / "checkpoints" / "step-000002", cfg)
    assert again["step"] == 2
    for key in ("winrate_scripted", "winrate_start", "games_scripted", "elo"):
        assert again[key] == pytest.approx(printed[key])
    assert (tmp_path / "run" / "metrics.jsonl").read_text().count("\n") == len(rows)  # untouched
    loaded = checkpoint_trainer(tmp_path / "run" / "checkpoints" / "step-000002", cfg,
                                str(tmp_path / "scratch"))
    try:  # the trained weights, not the starting ones the trainer was built with
        pairs = list(zip(loaded.model.parameters(), trained.model.parameters(), strict=True))
        assert all(torch.equal(a, b) for a, b in pairs)
        start = loaded.selfplay.load_start()
        try:
            assert not all(torch.equal(a.float(), b) for a, b in zip(
                start.policy.model.parameters(), loaded.model.parameters(), strict=True))
        finally:
            start.policy.close()
    finally:
        loaded.close()
