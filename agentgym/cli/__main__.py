"""``python -m agentgym.cli ...`` (and ``torchrun -m agentgym.cli train ...``)."""

from __future__ import annotations

from . import main

if __name__ == "__main__":
    main()
