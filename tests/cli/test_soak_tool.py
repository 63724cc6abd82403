"""The soak benchmark's measuring parts: the process tree, kinds and the growth slope."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _soak():
    spec = importlib.util.spec_from_file_location("soak", ROOT / "benchmarks" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_child_process_is_sampled_and_gone_after_it_ends():
    soak = _soak()
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        with_child = soak.sample(episodes=5, by_family={"sql": 5})
        assert child.pid in soak.descendants(os.getpid())
        assert with_child["kinds"].get("python", 0) >= 1 and with_child["rss_mib"] > 0
        assert with_child["fds"] > 0 and with_child["by_family"] == {"sql": 5}
    finally:
        child.stdin.close()
        child.wait(timeout=60)
    assert child.pid not in soak.descendants(os.getpid())


def test_growth_is_the_slope_per_thousand_episodes():
    soak = _soak()
    assert soak.slope_per_1k([(0, 10), (100, 11), (200, 12)]) == 10.0  # 1 per 100 episodes
    assert soak.slope_per_1k([(0, 10), (500, 10), (900, 10)]) == 0.0
    assert soak.slope_per_1k([(5, 3)]) == 0.0
