"""The switch from behaviour cloning to RL (``bc_optimizer``): RL starts from fresh optimizer
moments unless asked to keep BC's, whose momentum otherwise moves the weights through RL steps
that have no gradient at all."""

from __future__ import annotations

import pytest

from agentgym import ConfigError


def _weights_moved_by_a_gradient_free_rl_step(tiny_cfg, mode: str) -> tuple[float, float]:
    """(grad norm of the first RL step, largest weight change it made) after one BC step."""
    from agentgym.trainers.bc import BCWarmupTrainer

    # the tiny random model never completes a shop task: every group's rewards are equal,
    # every advantage is 0, so the RL step's loss carries no gradient
    cfg = tiny_cfg("env=shop/price-v0", "algorithm=bc_grpo", "bc_steps=1", "steps=2",
                   "bc_batch_size=4", "max_turns=4", "max_new_tokens=8", "tasks_per_step=2",
                   "group_size=2", "bc_lr=0.01", f"bc_optimizer={mode}")
    trainer = BCWarmupTrainer(cfg)
    trainer.setup()
    try:
        trainer.step()                                     # behaviour cloning
        assert trainer.optimizer.state                     # BC left its Adam moments
        before = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
        metrics = trainer.step()                           # the first RL step
        after = trainer.model.state_dict()
        moved = max(float((after[k] - v).abs().max()) for k, v in before.items())
        return metrics["grad_norm"], moved
    finally:
        trainer.close()


def test_rl_starts_from_fresh_moments_so_no_gradient_moves_nothing(tiny_cfg) -> None:
    grad_norm, moved = _weights_moved_by_a_gradient_free_rl_step(tiny_cfg, "reset")
    assert grad_norm == 0.0 and moved == 0.0


def test_kept_moments_move_the_weights_without_a_gradient(tiny_cfg) -> None:
    grad_norm, moved = _weights_moved_by_a_gradient_free_rl_step(tiny_cfg, "keep")
    assert grad_norm == 0.0 and moved > 1e-4  # BC's momentum, not RL, moved them


def test_an_unknown_mode_is_refused(tiny_cfg) -> None:
    with pytest.raises(ConfigError, match="bc_optimizer must be reset or keep"):
        tiny_cfg("bc_optimizer=fresh")
