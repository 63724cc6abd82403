"""``python -m agentgym.trainers CONFIG [key=value ...] [--resume | --overwrite]``.

The entry point for ``torchrun --nproc_per_node N -m agentgym.trainers CONFIG``: the same run as
``agentgym train`` (which adds the summary table), through the trainers' public runner only.
"""

from __future__ import annotations

import argparse
import sys

from . import run_config


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and train; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m agentgym.trainers", description=__doc__)
    parser.add_argument("config", help="YAML config (see configs/)")
    parser.add_argument("overrides", nargs="*", help="key=value config overrides")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--resume", action="store_true", help="continue the run in output_dir")
    mode.add_argument("--overwrite", action="store_true", help="replace the run in output_dir")
    args = parser.parse_args(argv)
    flags = ["resume=true"] * args.resume + ["overwrite=true"] * args.overwrite
    run_config(args.config, [*args.overrides, *flags])
    return 0


if __name__ == "__main__":
    sys.exit(main())
