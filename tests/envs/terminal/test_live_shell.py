"""The bubblewrap backend's live shell: one sandbox per episode, each command sent to it.

Files persist between commands in the sandbox's tmpfs; each command is a fresh ``bash -c``
(cwd and variables do not carry over); a command that times out, exits or kills its own shell
ends only itself; nothing survives a reset; a fork gets its own copy of the files; a sandbox
killed from outside aborts the episode.
"""

from __future__ import annotations

import json
import os
import signal

import pytest

import agentgym
from agentgym.envs.terminal.env import TerminalEnv
from agentgym.sandboxes.bubblewrap import bubblewrap_available
from agentgym.testing.fork_check import check_fork

pytestmark = pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
TASK = "count-error-lines"


def call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def bash(env, command: str, timeout_s: float = 5) -> str:
    obs, reward, terminated, truncated, info = env.step(call("bash", command=command,
                                                             timeout_s=timeout_s))
    assert not terminated and not truncated and not info.get("aborted"), info
    return obs["text"]


@pytest.fixture
def env():
    e = TerminalEnv(split="all", command_timeout_s=5)
    e.reset(options={"task_id": TASK})
    yield e
    e.close()


def test_one_sandbox_serves_every_command_of_an_episode(env):
    assert bash(env, "echo one > /app/f").endswith("[exit status: 0]")
    live = env._live
    assert live is not None and live.alive
    assert bash(env, "cat /app/f; echo two >> /app/f").startswith("one")
    assert bash(env, "cat f").splitlines()[:2] == ["one", "two"]
    assert env._live is live  # the same sandbox: no new one per command


def test_a_command_after_a_timed_out_command_works_and_the_files_stay(env):
    bash(env, "echo kept > /app/k")
    out = bash(env, "echo started; sleep 30 & sleep 30", timeout_s=1)
    assert "started" in out and "timed out after 1s" in out
    out = bash(env, "cat /app/k; ps -e -o comm= | grep -c sleep")
    assert out.splitlines()[:2] == ["kept", "0"]  # nothing of the killed command is left


@pytest.mark.parametrize("command, status", [
    ("kill -9 $$", "[exit status: 137]"),
    ("exit 7", "[exit status: 7]"),
    ("sleep 60 & kill -9 -1; echo survived", "[exit status: 0]"),
    ("kill -9 1; kill -9 $PPID; echo still here", "[exit status: 0]"),
], ids=["kill-own-shell", "exit", "kill-all", "kill-init"])
def test_a_command_that_ends_its_shell_ends_only_itself(env, command, status):
    bash(env, "echo kept > /app/k")
    live = env._live
    assert bash(env, command).endswith(status)
    assert bash(env, "cat /app/k").startswith("kept")
    assert env._live is live and live.alive  # the sandbox (its PID 1) is untouched


def test_cwd_and_variables_do_not_carry_over(env):
    bash(env, "cd /tmp; export V=1")
    assert bash(env, "pwd; echo ${V:-unset}").splitlines()[:2] == ["/app", "unset"]


def test_no_process_or_file_survives_a_reset(env):
    bash(env, "echo secret > /app/secret; (setsid sleep 300 &); echo $$ > /tmp/pid")
    live = env._live
    pid = live.proc.pid
    env.reset(options={"task_id": TASK})
    assert not live.alive and live.proc.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    out = bash(env, "ls /app/secret /tmp/pid 2>&1; ps -e -o comm= | grep -c sleep")
    assert out.count("No such file") == 2 and out.splitlines()[2] == "0"


def test_a_forks_files_are_its_own(env):
    bash(env, "echo parent > /app/mark")
    child = env.fork_clone()
    try:
        bash(child, "echo child > /app/mark; echo only-child > /app/c")
        assert bash(env, "cat /app/mark; ls /app/c 2>&1").splitlines()[:2] == [
            "parent", "ls: cannot access '/app/c': No such file or directory"]
        bash(env, "echo parent2 > /app/mark")
        assert bash(child, "cat /app/mark").startswith("child")
        assert child._live is not env._live
    finally:
        child.close()
    assert env._live.alive  # closing the child left the parent's sandbox alone


def test_a_fork_dropped_without_close_leaves_no_sandbox(env):
    """A tree search drops branches: a forked env collected unclosed kills its sandbox (and
    frees its cgroup), and the parent's stays."""
    import gc

    child = env.fork_clone()
    bash(child, "true")
    pid = child._live.proc.pid
    del child
    gc.collect()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert env._live is None or env._live.alive


def test_the_fork_contract_holds():
    made = agentgym.make("terminal/easy-test-v0", command_timeout_s=5)
    try:
        assert check_fork(made, call("bash", command="echo x >> /app/fork.txt")) == "checked"
    finally:
        made.close()


def test_a_sandbox_killed_from_outside_aborts_the_episode(env):
    bash(env, "true")
    os.killpg(env._live.proc.pid, signal.SIGKILL)
    obs, reward, terminated, truncated, info = env.step(call("bash", command="echo hi"))
    assert info.get("aborted") and "terminal sandbox failed" in str(info)
    env.reset(options={"task_id": TASK})  # the next episode gets a new sandbox
    assert bash(env, "echo back").startswith("back")


def test_a_large_filesystem_forks_whole():
    """Snapshots and loads are streamed through PID 1 (never held whole: they count in the
    same memory cgroup as the tmpfs they copy)."""
    env = TerminalEnv(split="all", command_timeout_s=20, disk_mb=64, memory_mb=256)
    try:
        env.reset(options={"task_id": TASK})
        bash(env, "head -c 60M /dev/urandom > /app/big; head -c 60M /dev/urandom > /tmp/big; "
                  "cat /app/big /tmp/big | md5sum > /root/sum", timeout_s=20)
        child = env.fork_clone()
        try:
            out = bash(child, "cat /app/big /tmp/big | md5sum | cmp - /root/sum && echo same",
                       timeout_s=20)
            assert out.startswith("same"), out
        finally:
            child.close()
    finally:
        env.close()
