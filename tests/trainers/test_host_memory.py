"""A fixed mmap threshold gives freed tensor-sized blocks back to the OS (glibc hosts)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentgym.trainers.config import TrainConfig
from agentgym.trainers.host_memory import fix_mmap_threshold

PROBE = """
import sys
import numpy as np
from agentgym.trainers.host_memory import fix_mmap_threshold
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
print(fix_mmap_threshold(int(sys.argv[1])))
big = np.ones(4 * 2**20 // 8); del big                   # glibc's threshold rises to 4 MiB
blocks = [np.ones(2 * 2**20 // 8) for _ in range(100)]   # 200 MiB of 2 MiB blocks
keep = np.ones(2 * 2**20 // 8)                           # a live block above them
before = rss()
del blocks
print((before - rss()) / 2**20)
"""


def _returned_mib(threshold_kb: int) -> tuple[str, float]:
    out = subprocess.run([sys.executable, "-c", PROBE, str(threshold_kb)], check=True,
                         capture_output=True, text=True).stdout.split()
    return out[0], float(out[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_freed_blocks_go_back_to_the_os_only_with_the_threshold_fixed() -> None:
    assert _returned_mib(0) == ("False", pytest.approx(0.0, abs=20))  # glibc keeps them
    fixed, returned = _returned_mib(1024)
    assert fixed == "True" and returned > 150  # the 200 MiB freed leave the process


def test_the_setting_is_checked_and_lives_in_the_learner_section() -> None:
    from agentgym.errors import ConfigError
    from agentgym.trainers.config_sections import HOME

    assert HOME["host_malloc_threshold_kb"] == "learner"
    with pytest.raises(ConfigError, match="host_malloc_threshold_kb"):
        TrainConfig(host_malloc_threshold_kb=-1)
    assert fix_mmap_threshold(0) is False  # 0: glibc's own threshold, untouched
