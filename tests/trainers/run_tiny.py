"""Run the trainer on the tiny env in a subprocess: ``python run_tiny.py [key=value ...]``.

Used by the resume and data-parallel tests (``torchrun ... run_tiny.py`` for the latter).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import tinyenv  # noqa: E402

from agentgym.trainers import load_config, train  # noqa: E402

TINY = [
    "env=tinytest/digits-v0", "model=agentgym.trainers.tiny:tiny_llama", "device=cpu",
    "tasks_per_step=3", "group_size=4", "max_new_tokens=6", "lr=0.01", "micro_batch_size=5",
    "eval_every=0", "eval_at_start=false", "tensorboard=false", "progress=false",
    "torch_threads=1", "num_envs=4", "max_batch_size=16",
]

if __name__ == "__main__":
    tinyenv.register()
    train(load_config(None, [*TINY, *sys.argv[1:]]))
