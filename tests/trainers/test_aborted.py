"""Aborted episodes (infrastructure failures) are neither trained on nor scored as failures."""

from __future__ import annotations


def test_aborted_episodes_leave_groups_and_held_out_scores(tiny_cfg):
    from agentgym.trainers.grpo import GRPOTrainer

    broken = ["t1", "t2", "t3", "t5", "t0", "t4"]  # train and test tasks
    cfg = tiny_cfg("steps=1", "eval_every=1", "eval_at_start=true", "tasks_per_step=6",
                   f"env_kwargs={{broken_tasks: [{', '.join(broken)}]}}")
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    try:
        groups, ro = trainer.collect()
        flat = [t for g in groups for t in g]
        hit = [t for t in flat if t.aborted]
        assert hit and all("is down" in t.reason for t in hit)
        batch, trained = trainer.prepare(groups)
        assert trained and not any(t.aborted for t in trained)
        assert len(batch) == len(flat) - len(hit)
        result = trainer.evaluate()
        assert result["aborted_greedy"] == 2  # t0 and t4 of the 8 test tasks
        assert result["episodes_greedy"] == 6
    finally:
        trainer.close()
