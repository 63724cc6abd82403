"""agentgym's Harbor task parser agrees with Harbor's own task model (``harbor`` on PyPI, which
needs Python >= 3.12: it lives in .venv-harbor, made by scripts/setup_harbor_venv.sh; without it
this test is skipped)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentgym.envs.terminal.env import BUNDLED
from agentgym.envs.terminal.harbor import discover, load_task

ROOT = Path(__file__).resolve().parents[3]
HARBOR_PYTHON = ROOT / ".venv-harbor" / "bin" / "python"
FIXTURES = Path(__file__).parent / "fixtures"
READ = r"""
import json, sys
from harbor.models.task.task import Task
out = {}
for folder in sys.argv[1:]:
    t = Task(folder)
    c = t.config
    steps = c.steps or []
    out[folder] = {
        "agent": c.agent.timeout_sec, "verifier": c.verifier.timeout_sec,
        "cpus": c.environment.cpus, "memory_mb": c.environment.memory_mb,
        "storage_mb": c.environment.storage_mb, "steps": [s.name for s in steps],
        "step_verifier": [(s.verifier.timeout_sec if s.verifier and s.verifier.timeout_sec
                           else c.verifier.timeout_sec) for s in steps],
        "instruction": None if steps else t.instruction,
        "difficulty": (c.metadata or {}).get("difficulty"),
    }
print(json.dumps(out))
"""


@pytest.mark.skipif(not HARBOR_PYTHON.exists(), reason="no .venv-harbor "
                    "(scripts/setup_harbor_venv.sh)")
def test_every_task_reads_the_same_in_harbor():
    folders = [*discover(BUNDLED), *discover(FIXTURES)]
    done = subprocess.run([str(HARBOR_PYTHON), "-c", READ, *map(str, folders)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    assert len(theirs) == len(folders) >= 62
    for folder in folders:
        want, ours = theirs[str(folder)], load_task(folder)
        multi = len(want["steps"]) > 0
        assert [s.name for s in ours.steps] == (want["steps"] if multi else ["main"]), folder
        assert ours.steps[0].agent_timeout_s == want["agent"]
        assert [s.verifier_timeout_s for s in ours.steps] == (
            want["step_verifier"] if multi else [want["verifier"]])
        assert (ours.cpus, ours.memory_mb) == (want["cpus"], want["memory_mb"])
        if want["storage_mb"] is not None:
            assert ours.storage_mb == want["storage_mb"]
        if not multi:
            assert ours.instruction.strip() == want["instruction"].strip()
        assert ours.metadata.get("difficulty") == want["difficulty"]
