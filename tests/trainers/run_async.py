"""Run the asynchronous trainer on the tiny env with a per-turn latency (the kill -9 test).

``python run_async.py DELAY [key=value ...]``: every policy turn waits ``DELAY`` seconds first,
so a run lasts long enough to be killed in the middle. ``dump=PATH`` (not a config key) makes
every rank save its final weights to ``PATH/rank-<r>.pt`` (the torchrun test).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import tinyenv  # noqa: E402
from run_tiny import TINY  # noqa: E402

from agentgym.testing.latency import LatencyPolicy  # noqa: E402
from agentgym.trainers import AsyncGRPOTrainer, load_config  # noqa: E402
from agentgym.trainers.rollouts import Rollouts  # noqa: E402


class SlowAsyncTrainer(AsyncGRPOTrainer):
    """The asynchronous trainer whose rollout policy waits before each turn."""

    delay = 0.0

    def setup(self) -> None:
        """Replace the rollout engines by ones over the delayed policy."""
        super().setup()
        self.rollouts.close()
        slow = LatencyPolicy(self.policy, self.delay)
        self.rollouts = Rollouts(self.cfg, slow, self.max_turns)


def main(argv: list[str]) -> None:
    """Train with the delay of ``argv[0]``; optionally dump each rank's weights."""
    tinyenv.register()
    SlowAsyncTrainer.delay = float(argv[0])
    dump = next((a.split("=", 1)[1] for a in argv if a.startswith("dump=")), None)
    args = [a for a in argv[1:] if not a.startswith("dump=")]
    trainer = SlowAsyncTrainer(load_config(None, [*TINY, "async_rollouts=true", *args]))
    trainer.train()
    if dump:
        import torch

        rank = int(os.environ.get("RANK", "0"))
        state = trainer.policy.model.state_dict()  # the weights the generator decodes with
        torch.save({k: v.detach().clone() for k, v in state.items()},
                   Path(dump) / f"rank-{rank}.pt")


if __name__ == "__main__":
    main(sys.argv[1:])
