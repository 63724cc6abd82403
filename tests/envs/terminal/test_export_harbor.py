"""``agentgym export harbor``: code-family tasks as Harbor folders that ``harbor:`` (and Harbor's
own task model) reads, whose oracle passes and whose stubs fail."""

from __future__ import annotations

import json
import subprocess

import pytest

from agentgym.envs.terminal.env import TerminalEnv
from agentgym.envs.terminal.harbor import discover, load_task
from agentgym.errors import ConfigError
from agentgym.exporters import export_harbor
from agentgym.sandboxes.bubblewrap import bubblewrap_available

from .test_harbor_package import HARBOR_PYTHON, READ


def call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    return export_harbor("code/py-functions-v1", tmp_path_factory.mktemp("h") / "code")


def test_every_test_task_is_a_harbor_folder(exported):
    folders = discover(exported)
    assert len(folders) == 42
    task = load_task(folders[0])
    assert task.metadata["split"] == "test" and task.metadata["source_env"]
    assert "/app/solution.py" in task.instruction and "def " in task.instruction
    assert set(task.steps[0].tests) == {"test.sh", "test_solution.py"}
    with pytest.raises(ConfigError, match="not empty"):
        export_harbor("code/py-functions-v1", exported)
    with pytest.raises(ConfigError, match="function-writing"):
        export_harbor("shop/price-v0", exported.parent / "shop")


@pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
def test_oracle_passes_stubs_and_nothing_fail(exported):
    env = TerminalEnv(exported, split="all")
    for task_id in env.task_set.ids()[:3]:
        env.reset(options={"task_id": task_id})
        for action in env.expert_actions(env.task):
            _, reward, terminated, _, info = env.step(action)
        assert terminated and reward == 1.0, info
        entry = load_task(env.task.data["path"]).instruction.split("`")[3]
        for body in ("", f"def {entry}(*args, **kwargs):\n    return None\n",
                     "import sys\nsys.exit(0)\n",
                     "import os\nos.makedirs('/logs/verifier', exist_ok=True)\n"
                     "open('/logs/verifier/reward.txt', 'w').write('1')\n"):
            env.reset(options={"task_id": task_id})
            if body:
                env.step(call("write_file", path="/app/solution.py", content=body))
            _, reward, terminated, _, _ = env.step(call("submit"))
            assert terminated and reward == 0.0, (task_id, body)
    env.close()


@pytest.mark.skipif(not HARBOR_PYTHON.exists(), reason="no .venv-harbor")
def test_harbor_reads_the_exported_tasks(exported):
    folders = discover(exported)
    done = subprocess.run([str(HARBOR_PYTHON), "-c", READ, *map(str, folders)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    for folder in folders:
        assert theirs[str(folder)]["instruction"].strip() == load_task(folder).instruction.strip()
