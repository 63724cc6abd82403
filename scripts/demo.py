"""`make demo`: the main job on the embedded defaults.

A short multi-turn GRPO run of SmolLM2-135M on the bundled SQL family (held-out evaluation before
and after, checkpoint, report), then a held-out `agentgym eval` of the scripted expert on the SQL
test split. The run that shows a learning gain is `agentgym train configs/grpo_arith_cpu.yaml`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent / "agentgym"


def main() -> None:
    """Train briefly, then evaluate on the held-out split."""
    subprocess.run([str(BIN), "train", "configs/demo_grpo_sql.yaml"], check=True)
    subprocess.run(
        [str(BIN), "eval", "sql", "--policy", "scripted", "--split", "test", "-n", "20",
         "--out", "runs/demo_eval"],
        check=True,
    )


if __name__ == "__main__":
    main()
