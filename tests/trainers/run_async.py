"""Run the asynchronous trainer on the tiny env with a per-turn latency (the kill -9 test).

``python run_async.py DELAY [key=value ...]``: every policy turn waits ``DELAY`` seconds first,
so a run lasts long enough to be killed in the middle.
"""

from __future__ import annotations

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
    """Train with the delay of ``argv[0]``."""
    tinyenv.register()
    SlowAsyncTrainer.delay = float(argv[0])
    SlowAsyncTrainer(load_config(None, [*TINY, "async_rollouts=true", *argv[1:]])).train()


if __name__ == "__main__":
    main(sys.argv[1:])
