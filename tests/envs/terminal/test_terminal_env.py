"""The terminal env on the bubblewrap backend: tools, persistence, verifier, steps, oracle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agentgym
from agentgym.envs.terminal.env import TerminalEnv
from agentgym.sandboxes.bubblewrap import bubblewrap_available

pytestmark = pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
FIXTURES = Path(__file__).parent / "fixtures"


def call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def run(env, name: str, **arguments):
    obs, reward, terminated, truncated, info = env.step(call(name, **arguments))
    return obs["text"], reward, terminated, info


@pytest.fixture(scope="module")
def env():
    e = TerminalEnv(split="all", command_timeout_s=5, max_output_chars=400)
    yield e
    e.close()


def test_bash_shows_output_exit_status_and_keeps_files(env):
    text, _ = env.reset(options={"task_id": "count-error-lines"})
    assert "ERROR" in text["text"] and "/app" in text["text"]
    out, reward, done, _ = run(env, "bash", command="pwd; echo hi > /app/x; exit 3")
    assert out.splitlines() == ["/app", "[exit status: 3]"] and reward == 0 and not done
    out, *_ = run(env, "bash", command="cat x; cd /tmp; export V=1")
    assert out.splitlines()[0] == "hi"
    out, *_ = run(env, "bash", command="pwd; echo ${V:-unset}")  # a fresh shell each time
    assert out.splitlines()[:2] == ["/app", "unset"]


def test_output_is_capped_visibly_and_deadline_kills(env):
    env.reset(options={"task_id": "count-error-lines"})
    out, *_ = run(env, "bash", command="seq 1 5000")  # head and tail kept, the middle cut
    assert "characters truncated" in out and out.splitlines()[0] == "1"
    assert out.splitlines()[-2:] == ["5000", "[exit status: 0]"] and len(out) < 800
    out, *_ = run(env, "bash", command="head -c 10M /dev/zero | tr '\\0' a")
    assert "[output over the capture limit was discarded]" in out and len(out) < 900
    out, *_ = run(env, "bash", command="echo started; sleep 30", timeout_s=1)
    assert "started" in out and "timed out after 1s" in out
    out, *_ = run(env, "bash", command="echo after")
    assert out.startswith("after")


def test_bad_calls_are_error_observations(env):
    env.reset(options={"task_id": "count-error-lines"})
    for action in (call("bash", command=""), call("bash", command="x\x00y"),
                   call("bash"), call("bash", command="true", timeout_s=-1),
                   call("read_file", path="/nope"), call("write_file", path="/usr/x", content="1"),
                   call("write_file", path="/app/x", content="y" * 70000), "no tool here"):
        obs, reward, terminated, truncated, info = env.step(action)
        assert "Error" in obs["text"] and reward == 0 and not terminated and not truncated
        assert not info.get("aborted")


def test_read_and_write_files(env):
    env.reset(options={"task_id": "count-error-lines"})
    assert run(env, "write_file", path="deep/new dir/f.txt", content="a\nb\n")[0].startswith(
        "wrote 4 bytes")
    assert run(env, "read_file", path="/app/deep/new dir/f.txt")[0] == "a\nb"
    assert run(env, "bash", command="wc -l < 'deep/new dir/f.txt'")[0].startswith("2")


def test_submit_runs_hidden_tests_once_the_agent_is_done(env):
    env.reset(options={"task_id": "count-error-lines"})
    out, *_ = run(env, "bash", command="ls /tests /solution; ls -A /logs")
    assert "check.sh" not in out and "test.sh" not in out
    run(env, "bash", command="grep -c ERROR server.log > answer.txt")
    out, reward, done, info = run(env, "submit")
    assert done and reward == 1.0 and info["success"] and info["verifier"] == "reward.txt"


def test_episode_state_is_reset_and_forked(env):
    env.reset(options={"task_id": "count-error-lines"})
    run(env, "bash", command="echo 1 > /app/mark")
    child = env.fork_clone()
    run(child, "bash", command="rm /app/mark")
    assert run(env, "bash", command="cat /app/mark")[0].startswith("1")
    env.reset(options={"task_id": "count-error-lines"})
    assert "No such file" in run(env, "bash", command="cat /app/mark")[0]


def test_oracle_and_do_nothing_on_a_few_bundled_tasks(env):
    for task_id in ("json-active-users", "git-merge-conflict", "sqlite-dedupe", "make-build",
                    "notes-two-steps"):
        env.reset(options={"task_id": task_id})
        for action in env.expert_actions(env.task):
            obs, reward, terminated, truncated, info = env.step(action)
        assert terminated and reward == 1.0, (task_id, obs["text"], info.get("verifier"))
        env.reset(options={"task_id": task_id})
        for _ in range(len(env.harbor.steps)):
            obs, reward, terminated, truncated, info = env.step(call("submit"))
        assert terminated and reward == 0.0, task_id


def test_multi_step_shows_the_next_instruction_and_averages():
    env = TerminalEnv(FIXTURES / "harbor-steps", split="all")
    env.reset(options={"task_id": "harbor-steps"})
    run(env, "bash", command="seq 1 5 > numbers.txt")
    out, reward, done, _ = run(env, "submit")
    assert not done and "Step 2 of 2" in out and "sum of the numbers" in out
    run(env, "bash", command="echo 16 > sum.txt")
    out, reward, done, info = run(env, "submit")
    assert done and reward == 0.5 and info["step_rewards"] == [1.0, 0.0]


def test_harbor_prefix_runs_a_hand_written_task_and_its_oracle():
    env = agentgym.make(f"harbor:{FIXTURES / 'harbor-hello'}")
    obs, info = env.reset(seed=0)
    assert "hello.txt" in obs["text"]
    for action in env.unwrapped.expert_actions(env.unwrapped.task):
        obs, reward, terminated, truncated, info = env.step(action)
    assert terminated and reward == 1.0 and info["verifier"] == "reward.json"
    env.reset(seed=0)
    run(env, "bash", command="echo 'Hello, world!' > hello.txt")  # half of the task
    assert run(env, "submit")[1] == 0.0
    env.close()


def test_registered_ids_and_splits():
    env = agentgym.make("terminal/easy-v0")
    base = env.unwrapped
    assert len(base.task_set) >= 15
    assert {t.data["difficulty"] for t in base.task_set} == {"easy"}
    env.close()
    with pytest.raises(agentgym.errors.EnvNotFound):
        agentgym.make("harbor:/no/such/folder")


def test_a_task_the_backend_cannot_build_is_a_clear_error(tmp_path):
    root = tmp_path / "t"
    for rel, text in {"task.toml": "", "instruction.md": "x",
                      "environment/Dockerfile": "FROM python:3.12\n",
                      "tests/test.sh": "true"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    env = TerminalEnv(root, split="all")
    with pytest.raises(agentgym.errors.TaskError, match="backend='docker'"):
        env.reset(options={"index": 0})
    (root / "environment/Dockerfile").write_text("FROM debian\nRUN exit 7\n")
    env = TerminalEnv(root, split="all")
    with pytest.raises(agentgym.errors.TaskError, match="exit status 7"):
        env.reset(options={"index": 0})
