"""``check_rewards`` on the terminal envs: the built-in probes plus the family's own (planted
reward files, tampered tests, killed shells, bombs, wiping) earn no more than doing nothing and
abort no episode. The full run (every probe and variant, both ids) is ``slow``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym.sandboxes.bubblewrap import bubblewrap_available
from agentgym.testing import check_rewards

pytestmark = pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
FIXTURES = Path(__file__).resolve().parents[1] / "envs" / "terminal" / "fixtures"


def test_terminal_rewards_cheap_probes():
    result = check_rewards("terminal/easy-test-v0", seeds=1, cheap=True, max_variants=2,
                           command_timeout_s=3)
    names = {p.name for p in result.probes}
    assert {"terminal-plant-reward", "terminal-tamper-tests"} <= names
    result.raise_for_failures()


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("env_id", ["terminal/test-v0", f"harbor:{FIXTURES}"])
def test_terminal_rewards_every_probe(env_id):
    check_rewards(env_id, seeds=2, rare_seeds=20, command_timeout_s=3).raise_for_failures()
