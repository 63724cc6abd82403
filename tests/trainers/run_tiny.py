"""Run the trainer on the tiny env in a subprocess: ``python run_tiny.py [key=value ...]``.

Used by the resume test and, under ``torchrun``, by the data-parallel test. ``dump=PATH``
(not a config key) makes every rank save its final weights to ``PATH/rank-<r>.pt``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import tinyenv  # noqa: E402

from agentgym.trainers import GRPOTrainer, load_config  # noqa: E402

TINY = [
    "env=tinytest/digits-v0", "model=agentgym.trainers.tiny:tiny_llama", "device=cpu",
    "tasks_per_step=3", "group_size=4", "max_new_tokens=6", "lr=0.01", "micro_batch_size=5",
    "eval_every=0", "eval_at_start=false", "tensorboard=false", "progress=false",
    "torch_threads=1", "num_envs=4", "max_batch_size=16",
]


def main(argv: list[str]) -> None:
    """Train; optionally dump each rank's weights."""
    dump = next((a.split("=", 1)[1] for a in argv if a.startswith("dump=")), None)
    args = [a for a in argv if not a.startswith("dump=")]
    tinyenv.register()
    trainer = GRPOTrainer(load_config(None, [*TINY, *args]))
    trainer.train()
    if dump:
        import torch

        rank = int(os.environ.get("RANK", "0"))
        model = trainer.policy.model  # the weights rollouts use (FSDP: the gathered replica)
        torch.save({k: v.detach().clone() for k, v in model.state_dict().items()},
                   Path(dump) / f"rank-{rank}.pt")


if __name__ == "__main__":
    main(sys.argv[1:])
