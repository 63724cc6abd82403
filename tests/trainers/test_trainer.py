"""The trainer end to end on the tiny model and the two-turn digits env (a few seconds)."""

from __future__ import annotations

import json

import pytest

from agentgym.trainers import GRPOTrainer
from agentgym.trainers.tracking import read_metrics


def test_smoke_run_logs_evaluates_checkpoints_and_reports(tiny_cfg):
    cfg = tiny_cfg("steps=2", "eval_every=2", "eval_at_start=true", "eval_samples=2",
                   "tensorboard=true")
    result = GRPOTrainer(cfg).train()
    out = result.output_dir
    rows = read_metrics(out / "metrics.jsonl")
    assert [(r["kind"], r["step"]) for r in rows] == [
        ("eval", 0), ("train", 1), ("train", 2), ("eval", 2)]
    train = rows[1]
    for key in ("reward", "success", "loss", "kl", "entropy", "clip_frac", "grad_norm",
                "gen_tokens_per_s", "rollout_s", "update_s", "behav_logp_abs_diff"):
        assert key in train, key
    assert train["episodes"] == 12 and train["policy_version"] == 1
    # Token-in, token-out: the trainer's log-probs are the ones the policy sampled with.
    assert train["behav_logp_abs_diff"] < 1e-3
    assert rows[0]["episodes_greedy"] == 8 and rows[0]["episodes_sampled"] == 16
    assert result.baseline["success_greedy"] == rows[0]["success_greedy"]
    assert (out / "report.png").stat().st_size > 1000
    assert list((out / "tb").iterdir())
    assert (out / "final" / "config.json").exists()
    assert json.loads((out / "summary.json").read_text())["steps"] == 2
    ckpt = out / "checkpoints" / "step-000002"
    assert {p.name for p in ckpt.iterdir()} == {
        "COMPLETE", "model.safetensors", "optimizer.pt", "trainer.pt", "rank-0.pt",
        "trajectories.jsonl"}


@pytest.mark.parametrize(
    "overrides",
    [
        ["algorithm=dr_grpo"],
        ["algorithm=dapo", "max_refill_rounds=1"],
        ["algorithm=gspo"],
        ["tis_cap=2.0", "kl_coef=0.1", "ppo_epochs=2", "lr_schedule=cosine", "warmup_steps=1"],
        ["lora=true", "lora_r=4", "lora_target_modules=[q_proj,v_proj]", "kl_coef=0.1"],
    ],
    ids=["dr_grpo", "dapo", "gspo", "tis-kl-epochs", "lora"],
)
def test_variants_take_a_step(tiny_cfg, overrides):
    trainer = GRPOTrainer(tiny_cfg("steps=1", "save_every=0", *overrides))
    trainer.train()
    row = read_metrics(trainer.metrics.path)[-1]
    assert row["kind"] == "train" and row["grad_norm"] >= 0
    if "ppo_epochs=2" in overrides:
        assert row["kl"] >= 0 and row["tis_weight_mean"] > 0
    if "lora=true" in overrides:
        trainable = [n for n, p in trainer.model.named_parameters() if p.requires_grad]
        assert trainable and all("lora_" in n for n in trainable)


def test_dynamic_sampling_drops_uniform_groups(tiny_cfg):
    trainer = GRPOTrainer(tiny_cfg("steps=1", "dynamic_sampling=true", "max_refill_rounds=2"))
    trainer.setup()
    try:
        groups, ro = trainer.collect()
    finally:
        trainer.close()
    assert len(groups) <= 3
    for g in groups:
        assert len({t.reward for t in g}) > 1
    assert trainer.state.round >= 1
