"""The trainer on a real CUDA device (skipped without one): the paths no CPU run exercises."""

from __future__ import annotations

import pytest
import torch

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(),
                                                  reason="needs a CUDA GPU")]


@pytest.mark.parametrize("overrides", [[], ["share_prompt=true"], ["gradient_checkpointing=true"],
                                       ["lora=true"], ["ppo_epochs=2", "kl_coef=0.1"]])
def test_device_auto_trains_on_the_gpu_in_mixed_precision(tiny_cfg, overrides):
    from agentgym.trainers.grpo import GRPOTrainer

    cfg = tiny_cfg("device=auto", "dtype=auto", "steps=2", *overrides)
    trainer = GRPOTrainer(cfg)
    result = trainer.train()
    assert trainer.device.type == "cuda" and trainer.autocast == torch.bfloat16
    assert next(trainer.model.parameters()).dtype == torch.float32  # fp32 master weights
    assert result.steps == 2


def test_update_on_gpu_matches_cpu_in_fp32():
    from types import SimpleNamespace

    from agentgym.trainers.batch import collate
    from agentgym.trainers.config import TrainConfig
    from agentgym.trainers.losses import ppo_clip_loss
    from agentgym.trainers.tiny import tiny_llama
    from agentgym.trainers.update import policy_update

    trajs = [SimpleNamespace(token_ids=[1, 2, 3, 4, 5, 6], loss_mask=[0, 0, 1, 1, 1, 1],
                             logprobs=[0, 0, -1.0, -1.5, -2.0, -0.5], prompt_ids=[1, 2]),
             SimpleNamespace(token_ids=[1, 2, 9, 8], loss_mask=[0, 0, 1, 1],
                             logprobs=[0, 0, -1.0, -2.0], prompt_ids=[1, 2])]
    metrics = []
    for device in ("cpu", "cuda"):
        model, _ = tiny_llama()
        model.to(device)
        batch = collate(trajs, torch.tensor([1.0, -1.0]), pad_id=0, loss_agg="token_mean")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        metrics.append(policy_update(model, batch, TrainConfig(micro_batch_size=1),
                                     ppo_clip_loss, opt))
    for key in ("loss", "logp_mean", "entropy", "grad_norm"):
        assert metrics[0][key] == pytest.approx(metrics[1][key], rel=1e-4, abs=1e-5), key
