"""The terminal env's Docker backend against a real engine: one locked-down container per env,
the same tar-backed filesystem, the same verifier rules and attacks as bubblewrap."""

from __future__ import annotations

import json

import pytest

from agentgym.envs.terminal.env import TerminalEnv
from agentgym.errors import TaskError

IMAGE = "agentgym-sandbox:py3"  # python3 and coreutils only: tasks that install nothing


def call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def run(env, name: str, **arguments):
    obs, reward, terminated, truncated, info = env.step(call(name, **arguments))
    assert not info.get("aborted"), info
    return obs["text"], reward, terminated, info


@pytest.fixture(scope="module")
def env(docker_engine):
    """One Docker-backed env (the session fixture starts the engine and builds the image)."""
    e = TerminalEnv(split="all", backend="docker", image=IMAGE, command_timeout_s=5)
    yield e
    e.close()


def test_commands_persist_files_and_report_status(env):
    env.reset(options={"task_id": "count-error-lines"})
    out, *_ = run(env, "bash", command="pwd; id -u; echo hi > x; exit 4")
    assert out.splitlines() == ["/app", "65534", "[exit status: 4]"]
    assert run(env, "bash", command="cat /app/x")[0].startswith("hi")
    out, *_ = run(env, "bash", command="echo a; sleep 20", timeout_s=1)
    assert "timed out after 1s" in out
    out, *_ = run(env, "bash", command="python3 -c \"import socket; "
                                       "socket.create_connection(('1.1.1.1', 53), 2)\" 2>&1")
    assert "unreachable" in out.lower()


def test_oracle_passes_and_a_planted_reward_does_not(env):
    for task_id in ("count-error-lines", "decode-base64"):
        env.reset(options={"task_id": task_id})
        for action in env.expert_actions(env.task):
            _, reward, terminated, _, info = env.step(action)
        assert terminated and reward == 1.0, info
    env.reset(options={"task_id": "count-error-lines"})
    run(env, "bash", command="mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt; "
                             "chmod 500 /logs/verifier")
    assert run(env, "submit")[1] == 0.0


def test_episodes_of_other_tasks_see_only_their_own_files(env):
    env.reset(options={"task_id": "count-error-lines"})
    run(env, "bash", command="echo leftover > /app/left; (sleep 100 &)")
    env.reset(options={"task_id": "decode-base64"})
    out, *_ = run(env, "bash", command="ls /app; cat /proc/[0-9]*/comm | grep -cx sleep")
    assert "left" not in out and "server.log" not in out and out.splitlines()[-2] == "0"


def test_fork_bomb_and_disk_bomb_stay_inside(env):
    env.reset(options={"task_id": "count-error-lines"})
    run(env, "bash", command="b() { b | b & }; b", timeout_s=3)
    run(env, "bash", command="head -c 2G /dev/zero > /app/fill", timeout_s=5)
    out, *_ = run(env, "bash", command="echo alive; ls /app")
    assert out.startswith("alive")
    assert len(env.state) < 140 * 1024 * 1024


def test_an_image_without_the_tasks_packages_is_a_clear_error(env):
    with pytest.raises(TaskError, match="lacks jq"):
        env.reset(options={"task_id": "json-active-users"})


def test_a_live_container_per_episode_gone_at_reset(env):
    """Each episode's commands go to one container of its own whose PID 1 serves them: the
    agent cannot kill it, its files persist between commands, a fork gets its own container,
    and a reset kills it (the engine deletes it)."""
    import docker

    env.reset(options={"task_id": "count-error-lines"})
    run(env, "bash", command="echo kept > /app/k")
    live = env._live
    for command, status in (("kill -9 $$", "[exit status: 137]"), ("exit 7", "[exit status: 7]"),
                            ("kill -9 1; sleep 9 & kill -9 -1; echo ok", "[exit status: 0]")):
        assert run(env, "bash", command=command)[0].endswith(status)
        assert run(env, "bash", command="cat /app/k")[0].startswith("kept")
    assert env._live is live
    child = env.fork_clone()
    try:
        run(child, "bash", command="echo child > /app/k")
        assert run(env, "bash", command="cat /app/k")[0].startswith("kept")
        assert child._live.container_id != live.container_id
    finally:
        child.close()
    cid = live.container_id
    env.reset(options={"task_id": "count-error-lines"})
    api = docker.from_env().api
    try:  # killed at the reset (every process in it gone), deleted by the engine meanwhile
        assert not api.inspect_container(cid)["State"]["Running"]
        api.wait(cid, timeout=120, condition="removed")
    except docker.errors.NotFound:
        pass
    with pytest.raises(docker.errors.NotFound):
        api.inspect_container(cid)
    assert "No such file" in run(env, "bash", command="cat /app/k")[0]
