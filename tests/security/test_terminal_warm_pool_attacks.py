"""Attacks on the Docker backend's warm pool: the next episode's container is started while
this one runs, so an episode must neither see it nor leave anything the next one finds."""

from __future__ import annotations

import json

import pytest

from agentgym.envs.terminal.env import TerminalEnv
from agentgym.sandboxes.testing import docker_engine  # noqa: F401  (a fixture)

IMAGE = "agentgym-sandbox:py3"
TASK = "count-error-lines"
LIST_PROCESSES = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done 2>/dev/null"
TAINT = ("for d in /app /tmp /root /dev/shm; do echo planted > $d/taint 2>/dev/null; done; "
         "ls /app/taint /tmp/taint /root/taint")


def bash(env, command: str) -> str:
    action = "<tool_call>" + json.dumps({"name": "bash", "arguments": {"command": command}}) \
        + "</tool_call>"
    obs, _, _, _, info = env.step(action)
    assert not info.get("aborted"), info
    return str(obs["text"])


@pytest.fixture
def env(docker_engine):  # noqa: F811  (the fixture imported above)
    # memory_mb of its own: a pool (settings key) no other test module shares
    e = TerminalEnv(split="all", backend="docker", image=IMAGE, command_timeout_s=5,
                    memory_mb=608, warm_pool=1)
    yield e
    e.close()


def test_an_episode_neither_sees_nor_taints_the_next_episodes_container(env):
    env.reset(options={"task_id": TASK})
    bash(env, "true")  # the episode's container is taken at its first command
    pool = env._live._pool
    assert pool.wait_idle(1, timeout=120), "no spare was started ahead"
    spare = pool.idle_ids()[0]
    # the spare's PID 1 runs the same server as ours: only one may be visible (our own)
    listed = bash(env, LIST_PROCESSES)
    assert sum("python3 -I -S -c" in line for line in listed.splitlines()) == 1, listed
    assert "/app/taint" in bash(env, TAINT)  # the plant took in this episode
    env.reset(options={"task_id": TASK})
    out = bash(env, "cat /app/taint /tmp/taint /root/taint /dev/shm/taint")
    assert env._live.container_id == spare  # the next episode ran in the spare
    assert "planted" not in out and out.count("No such file") == 4, out
