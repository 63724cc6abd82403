"""Trainers, losses and advantage estimators are registered through the plugin hooks."""

from __future__ import annotations

import torch

from agentgym import get_registry, hookimpl, register_plugin
from agentgym.trainers import GRPOTrainer, load_config
from agentgym.trainers.losses import ppo_clip_loss

CALLS: list[str] = []


def doubled_loss(logp, old_logp, advantages, mask, eps_low, eps_high):
    """PPO-clip times two (a plugin's loss)."""
    CALLS.append("loss")
    loss, clipped = ppo_clip_loss(logp, old_logp, advantages, mask, eps_low, eps_high)
    return 2 * loss, clipped


def raw_advantages(rewards, group_ids, eps=1e-6):
    """The reward itself (a plugin's advantage estimator)."""
    CALLS.append("advantage")
    return rewards.to(torch.float32)


class ThirdParty:
    """A plugin object registering a loss, an estimator and a trainer preset using them."""

    @hookimpl
    def agentgym_register_losses(self, register):
        register("loss/doubled", doubled_loss)
        register("advantage/raw", raw_advantages)

    @hookimpl
    def agentgym_register_trainers(self, register):
        register("my_grpo", "agentgym.trainers.grpo:GRPOTrainer",
                 preset={"loss": "doubled", "advantage": "raw"})


def test_builtins_are_registered():
    assert {"grpo", "dr_grpo", "dapo", "gspo"} <= set(get_registry("trainers").names())
    assert {"loss/ppo_clip", "loss/gspo", "advantage/grpo", "advantage/dr_grpo"} <= set(
        get_registry("losses").names())
    assert get_registry("trainers").get("dapo").plugin == "builtin-trainers"


def test_a_plugin_adds_a_loss_an_estimator_and_a_trainer(fresh_plugins, tiny_cfg):
    register_plugin(ThirdParty(), name="third-party")
    base = tiny_cfg()
    cfg = load_config(None, ["algorithm=my_grpo", f"env={base.env}", f"model={base.model}",
                             "device=cpu", "steps=1", "tasks_per_step=2", "group_size=2",
                             "max_new_tokens=3", "eval_every=0", "eval_at_start=false",
                             "save_every=0", "tensorboard=false", "progress=false",
                             f"output_dir={base.output_dir}"])
    assert (cfg.loss, cfg.advantage) == ("doubled", "raw")
    CALLS.clear()
    GRPOTrainer(cfg).train()
    assert "loss" in CALLS and "advantage" in CALLS
