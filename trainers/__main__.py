"""``python -m agentgym.trainers CONFIG [key=value ...] [--resume]``, same as ``agentgym train``.

The entry point for ``torchrun --nproc_per_node N -m agentgym.trainers CONFIG``.
"""

from __future__ import annotations

import sys

from agentgym.cli import app

if __name__ == "__main__":
    sys.exit(app(["train", *sys.argv[1:]]))
