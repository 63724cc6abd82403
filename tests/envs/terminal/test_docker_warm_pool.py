"""The Docker backend's warm pool against a real engine: each episode's container was started
ahead, serves that episode only, and none outlives the env; a pre-started container that died
aborts its episode with the reason."""

from __future__ import annotations

import json
import subprocess

import pytest

from agentgym.envs.terminal.env import TerminalEnv
from agentgym.sandboxes._docker_live import POOL_LABEL

IMAGE = "agentgym-sandbox:py3"  # python3 and coreutils only: tasks that install nothing
TASK = "count-error-lines"


def call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def run(env, command: str) -> str:
    obs, _, _, _, info = env.step(call("bash", command=command))
    assert not info.get("aborted"), info
    return obs["text"]


def pool_of(env):
    """The warm pool the env's current episode took its container from."""
    assert env._live is not None and env._live._pool is not None
    return env._live._pool


def containers(label: str, *, every: bool) -> list[str]:
    """Ids of the pool's containers ``docker ps`` lists (``every``: stopped ones too)."""
    args = ["docker", "ps", "-q", "--no-trunc", "--filter", f"label={POOL_LABEL}={label}"]
    done = subprocess.run(args + (["-a"] if every else []), capture_output=True, text=True,
                          check=True, timeout=60)
    return done.stdout.split()


@pytest.fixture
def env(docker_engine):
    # memory_mb of its own: a pool (settings key) no other test module shares
    e = TerminalEnv(split="all", backend="docker", image=IMAGE, command_timeout_s=5,
                    memory_mb=640, warm_pool=1)
    yield e
    e.close()


def test_each_episode_gets_a_fresh_pre_started_container(env):
    env.reset(options={"task_id": TASK})
    run(env, "echo one > /app/mark; echo one > /tmp/mark; echo one > /root/mark")
    first = env._live.container_id
    pool = pool_of(env)
    assert pool.wait_idle(1, timeout=120), "no spare was started ahead"
    spare = pool.idle_ids()[0]
    env.reset(options={"task_id": TASK})
    out = run(env, "ls -a /app /tmp /root; cat /app/mark /tmp/mark /root/mark")
    assert env._live.container_id == spare != first  # the one started ahead, not reused
    assert "one" not in out and out.count("No such file") == 3, out
    assert first not in containers(pool.key.label, every=False)  # killed at the reset
    assert pool.wait_idle(1, timeout=120)  # taking it started the next one
    assert pool.idle_ids() != [spare]


@pytest.mark.slow
def test_nothing_is_left_after_close(env):
    env.reset(options={"task_id": TASK})
    run(env, "sleep 300 > /dev/null 2>&1 & echo started")
    pool = pool_of(env)
    assert pool.wait_idle(1, timeout=120)
    spare = pool.idle_ids()[0]
    child = env.fork_clone()  # a fork takes the spare (the pool is bounded: none after it)
    run(child, "echo child > /app/c")
    assert child._live.container_id == spare != env._live.container_id
    label = pool.key.label
    assert set(containers(label, every=False)) >= {spare, env._live.container_id}
    env.close()  # the fork shares its sessions: its container goes with the pool
    assert containers(label, every=True) == []
    child.close()


@pytest.mark.slow
def test_a_killed_pre_started_container_aborts_the_episode(env):
    import docker

    env.reset(options={"task_id": TASK})
    run(env, "true")
    pool = pool_of(env)
    assert pool.wait_idle(1, timeout=120)
    spare = pool.idle_ids()[0]
    docker.from_env().api.kill(spare)
    env.reset(options={"task_id": TASK})
    obs, reward, _, truncated, info = env.step(call("bash", command="echo hi"))
    assert info.get("aborted") and truncated and reward == 0.0, info
    assert "terminal sandbox failed" in info["abort_reason"], info
    assert spare[:12] in info["abort_reason"], info  # which container, for the operator
    env.reset(options={"task_id": TASK})  # the next episode takes the next container
    assert run(env, "echo hi").startswith("hi")


EXITS = """
import json, sys
from agentgym.envs.terminal.env import TerminalEnv
env = TerminalEnv(split="all", backend="docker", image=sys.argv[1], memory_mb=640)
env.reset(options={"task_id": sys.argv[2]})
env.step('<tool_call>{"name": "bash", "arguments": {"command": "true"}}</tool_call>')
pool = env._live._pool
assert pool.wait_idle(1, timeout=120)
print(json.dumps([pool.key.label, env._live.container_id, *pool.idle_ids()]), flush=True)
import builtins
builtins.kept = env  # never closed nor collected: only the exit handler is left to act
"""


@pytest.mark.slow
def test_an_exiting_process_kills_its_pool(docker_engine):
    import sys

    done = subprocess.run([sys.executable, "-c", EXITS, IMAGE, TASK], capture_output=True,
                          text=True, timeout=600, check=True)
    label, *ids = json.loads(done.stdout.splitlines()[-1])
    assert len(ids) == 2  # the episode's container and the spare started ahead
    assert containers(label, every=False) == []  # none runs once the process is gone
