"""The trainer's update on image trajectories of a tiny random Idefics3 (vision-language) policy."""

from __future__ import annotations

import copy
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from policies.vision_env import register, tiny_vlm  # noqa: E402

from agentgym.policies import HFVisionPolicy, SamplingParams, image_inputs  # noqa: E402
from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig  # noqa: E402
from agentgym.trainers.batch import collate  # noqa: E402
from agentgym.trainers.config import TrainConfig  # noqa: E402
from agentgym.trainers.losses import ppo_clip_loss  # noqa: E402
from agentgym.trainers.update import (  # noqa: E402
    forward_logprobs,
    make_optimizer,
    policy_update,
)

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def rollout() -> tuple[Any, Any, list[Any]]:
    """Model, processor and three image trajectories (2, 3 and 3 screenshots)."""
    model, processor = tiny_vlm()
    register()
    policy = HFVisionPolicy(model, processor)
    config = RolloutConfig(max_turns=5, sampling=SamplingParams(max_tokens=5, temperature=1.0))
    engine = Engine("testvision/screens-v0", policy, num_envs=3, config=config)
    trajs = engine.run([EpisodeRequest(task_id=t, sample_idx=i)
                        for i, t in enumerate(["s2", "s3", "s3"])])
    engine.close()
    assert all(t.terminated for t in trajs), [t.reason for t in trajs]
    return model, processor, trajs


def _fresh_logprobs(model: Any, processor: Any, traj: Any) -> Any:
    """Log-probs of each next token from one plain forward pass of one trajectory, ``(T-1,)``."""
    ids = torch.tensor([traj.token_ids])
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=torch.ones_like(ids),
                       **image_inputs(processor, [traj.images])).logits[0]
    return torch.log_softmax(logits[:-1].float(), -1).gather(-1, ids[0, 1:, None])[:, 0]


def _batch(processor: Any, trajs: list[Any], pad: int) -> Any:
    return collate(trajs, torch.tensor([1.0, -0.5, 0.5]), pad_id=pad, loss_agg="token_mean",
                   share_prompt=True, vision=image_inputs(processor, [t.images for t in trajs]))


def test_trainer_logprobs_on_image_trajectories_match_a_fresh_forward(
    rollout: tuple[Any, Any, list[Any]],
) -> None:
    model, processor, trajs = rollout
    batch = _batch(processor, trajs, processor.tokenizer.pad_token_id)
    assert batch.vision["pixel_values"].shape[:2] == (3, 3)  # rows padded to 3 images
    assert batch.segments == []  # the shared prompt holds images: not shared
    fresh = [_fresh_logprobs(model, processor, t) for t in trajs]
    for micro in (2, 3):  # micro-batches slice the image rows with the token rows
        parts = [forward_logprobs(model, mb, temperature=1.0)[0]
                 for mb in batch.micro_batches(micro)]
        for row, t in enumerate(trajs):
            mb_index, offset = divmod(row, micro)
            logp = parts[mb_index][offset]
            n = len(t.token_ids) - 1
            mask = batch.mask[row, :n].bool()
            assert torch.allclose(logp[:n][mask], fresh[row][mask], atol=1e-4)
            assert torch.allclose(logp[:n][mask], batch.behav_logp[row, :n][mask], atol=1e-4)
    # without the pixels the same ids give other log-probs: the update really sees the images
    blind = copy.copy(batch)
    blind.vision = {}
    logp_blind = forward_logprobs(model, blind, temperature=1.0)[0]
    gap = ((logp_blind - batch.behav_logp).abs() * batch.mask).max()
    assert gap > 1e-3


def test_policy_update_steps_on_image_trajectories(rollout: tuple[Any, Any, list[Any]]) -> None:
    base, processor, trajs = rollout
    model = copy.deepcopy(base).train()
    batch = _batch(processor, trajs, processor.tokenizer.pad_token_id)
    cfg = TrainConfig(lr=1e-2, micro_batch_size=2, ppo_epochs=1, max_grad_norm=1.0)
    optimizer = make_optimizer([p for p in model.parameters() if p.requires_grad], cfg)
    vision_before = copy.deepcopy(model.model.vision_model.state_dict())
    metrics = policy_update(model, batch, cfg, ppo_clip_loss, optimizer)
    assert metrics["train_tokens"] == batch.num_tokens > 0
    assert metrics["behav_logp_abs_diff"] < 1e-4  # trainer and rollout agree before the step
    assert torch.isfinite(torch.tensor(metrics["loss"])) and metrics["grad_norm"] > 0
    # the gradient reached the vision tower through the image features
    vision_after = model.model.vision_model.state_dict()
    assert any(not torch.equal(vision_before[k], vision_after[k]) for k in vision_before)
    # the positive-advantage row's trained tokens became more likely, the negative one's less
    after = [forward_logprobs(model.eval(), mb, 1.0)[0] for mb in batch.micro_batches(3)][0]
    gain = ((after - batch.behav_logp) * batch.mask).sum(-1)  # (B,)
    assert gain[0] > 0 > gain[1]


def test_grpo_trainer_steps_on_a_vision_language_model(tmp_path: Any) -> None:
    """A config naming a VLM factory: the trainer serves it as hf-vision and trains on images."""
    from agentgym.trainers import GRPOTrainer, load_config

    tiny_vlm()  # skips without the tokenizer
    register()
    cfg = load_config(None, [
        "env=testvision/screens-v0", "model=agentgym.testing.tiny_vlm:tiny_idefics3",
        "device=cpu", "tasks_per_step=2", "group_size=2", "max_new_tokens=4", "lr=0.01",
        "micro_batch_size=4", "steps=1", "eval_every=0", "eval_at_start=false",
        "tensorboard=false", "progress=false", "torch_threads=1", "num_envs=4",
        f"output_dir={tmp_path / 'run'}",
    ])
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    try:
        assert isinstance(trainer.policy, HFVisionPolicy)
        before = {k: v.clone() for k, v in trainer.model.state_dict().items()}
        metrics = trainer.step()
        trajs = trainer.state.last_trajectories
        assert trajs and all(t.images for t in trajs) and metrics["train_tokens"] > 0
        assert metrics["behav_logp_abs_diff"] < 1e-3  # rollout and trainer saw the same images
        after = trainer.model.state_dict()
        assert any(not torch.equal(before[k], after[k]) for k in before)
        assert trainer.policy.version == 1  # the shared module's update reached the policy
    finally:
        trainer.close()
