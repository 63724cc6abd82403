"""openenv-core's own client (``GenericEnvClient``, in ``.venv-openenv``) plays agentgym's
code env (``code/py-functions-v1``) served by agentgym's OpenEnv-protocol server, with the
scripted expert's tool calls; every step's reward equals ``agentgym.make`` stepping the same
calls in-process. Skips without ``.venv-openenv`` (scripts/setup_openenv_venv.sh)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import agentgym

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from serve.servers import ThreadServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PEER_PYTHON = ROOT / ".venv-openenv" / "bin" / "python"
CLIENT = Path(__file__).with_name("openenv_peer_client.py")
ENV = "code/py-functions-v1"

pytestmark = pytest.mark.skipif(not PEER_PYTHON.exists(), reason="no .venv-openenv "
                                "(scripts/setup_openenv_venv.sh)")


@pytest.fixture(scope="module")
def code_url() -> Iterator[str]:
    """agentgym's OpenEnv-protocol server (``agentgym serve code/py-functions-v1 --openenv``)."""
    from agentgym.serve import create_app

    server = ThreadServer(create_app([ENV], max_sessions=8, idle_timeout_s=600,
                                     env_kwargs={"split": "test"}))
    server.start()
    yield server.url
    server.stop()


def test_openenvs_client_plays_the_code_env_with_agentgyms_rewards(code_url: str) -> None:
    """Two episodes with the expert's calls, one with another task's (wrong) solution."""
    own = agentgym.make(ENV, split="test")
    plans = []
    for seed in (0, 1):
        own.reset(seed=seed)
        plans.append((seed, own.unwrapped.expert_actions(own.unwrapped.task)))
    plans.append((1, plans[0][1]))  # task 0's solution submitted for task 1
    expected, episodes = [], []
    for seed, calls in plans:
        own.reset(seed=seed)
        expected.append([own.step(c.to_hermes())[1] for c in calls])
        episodes.append({"seed": seed, "actions": [{"tool_calls": [c.to_openai()]}
                                                   for c in calls]})
    own.close()
    done = subprocess.run([str(PEER_PYTHON), str(CLIENT), code_url, json.dumps(episodes)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    played = json.loads(done.stdout.strip().splitlines()[-1])
    assert [[s["reward"] for s in e["steps"]] for e in played] == expected
    assert [e[-1] for e in expected] == [1.0, 1.0, 0.0]  # the expert pays, the wrong code not
    assert all(e["steps"][-1]["done"] for e in played)
