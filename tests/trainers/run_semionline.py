"""Run BC + semi-online RL on the shop env with the tiny model: ``python run_semionline.py k=v``.

Used by the semi-online resume test. The first step is behaviour cloning, the rest semi-online.
"""

from __future__ import annotations

import sys

from agentgym.trainers import load_config, train

TINY_SEMI = [
    "algorithm=semi_online", "env=shop/price-v0", "model=agentgym.trainers.tiny:tiny_llama",
    "device=cpu", "bc_steps=1", "bc_batch_size=4", "bc_lr=0.01", "tasks_per_step=2",
    "group_size=3", "max_new_tokens=6", "lr=0.01", "micro_batch_size=4", "semi_filter_std=-1",
    "patch_threshold=1", "eval_every=0", "eval_at_start=false", "tensorboard=false",
    "progress=false", "torch_threads=1", "max_batch_size=16",
]


if __name__ == "__main__":
    train(load_config(None, [*TINY_SEMI, *sys.argv[1:]]))
