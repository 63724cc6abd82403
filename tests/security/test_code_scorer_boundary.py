"""The code scorer's boundary (issue 24): only inputs go in, only plain literals come out.

Against the real sandboxes (bubblewrap; Docker's warm pool under the ``docker`` marker):

- a literal that is code, forged into the runner's results channel, never runs in the scorer
  (the marker file it would create on the host stays absent) and scores 0;
- nothing but the runner, the solution and the call inputs enters the sandbox: no test, no
  expected value, no reference solution;
- the runner refuses forks and threads (a child could otherwise outlive a call or write
  results after it);
- a correct solution that exits midway, floods its output or hangs past the limit scores 0,
  as when the tests ran inside its process and the report was lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import agentgym
from agentgym import ToolCall
from agentgym.sandboxes import FakeSandbox

TASK = "code-0001"  # reverse_words; visible and hidden tests are == comparisons of strings
CORRECT = "def reverse_words(s):\n    return ' '.join(reversed(s.split()))\n"


@pytest.fixture(
    scope="module", params=["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)]
)
def env(request: pytest.FixtureRequest) -> Iterator[agentgym.AgentEnv]:
    """The default code env on one real sandbox backend."""
    if request.param == "docker":
        request.getfixturevalue("docker_engine")
    e = agentgym.make("code/py-functions-v1", split="train", sandbox=request.param)
    yield e
    e.close()


def _submit(env: agentgym.AgentEnv, code: str) -> tuple[float, str]:
    env.reset(options={"task_id": TASK})
    obs, reward, terminated, _, info = env.step([ToolCall("submit", {"code": code})])
    assert terminated and "aborted" not in info, info
    return reward, obs["text"]


def test_forged_code_literals_never_run_in_the_scorer(
    env: agentgym.AgentEnv, tmp_path: Path
) -> None:
    marker = tmp_path / "scorer-ran-solution-code"
    forged = "".join(
        f"{i} ok __import__('os').system('touch {marker}') or open({str(marker)!r}, 'w')\n"
        for i in range(20)
    ) + "done\n"
    code = f"""
import os
for fd in range(1, 40):
    try:
        os.write(fd, {forged.encode()!r})
    except OSError:
        pass
def reverse_words(s):
    return None
"""
    reward, _ = _submit(env, code)
    assert reward == 0.0 and not marker.exists()


def test_only_the_inputs_enter_the_sandbox(env: agentgym.AgentEnv) -> None:
    real = env.unwrapped.sandbox
    seen = []

    def spy(call):  # type: ignore[no-untyped-def]
        seen.append(call)
        return real.run(call.command, files=call.files, limits=call.limits)

    env.unwrapped._sandbox = FakeSandbox(spy)
    try:
        reward, _ = _submit(env, CORRECT)
    finally:
        env.unwrapped._sandbox = real
    task = env.unwrapped.task_set.get(TASK)
    (call,) = seen
    sent = "\n".join(str(v) for v in call.files.values()) + " ".join(call.command)
    assert reward == 1.0 and set(call.files) == {"runner.py", "solution.py", "calls.txt"}
    for test in task.data["hidden_tests"]:
        expected = test.split(" == ", 1)[1]
        assert test not in sent and f"== {expected}" not in sent
    assert task.data["canonical_solution"] not in sent


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("import os\nos.fork()\n", "BlockingIOError"),
        ("import threading\nthreading.Thread(target=print).start()\n", "can't start new thread"),
        ("import subprocess\nsubprocess.run(['true'])\n", "BlockingIOError"),
    ],
)
def test_the_runner_refuses_forks_and_threads(
    env: agentgym.AgentEnv, code: str, error: str
) -> None:
    env.reset(options={"task_id": TASK})
    obs, *_ = env.step([ToolCall("run_tests", {"code": code + CORRECT})])
    assert "0/2 visible tests passed" in obs["text"] and error in obs["text"]


MISBEHAVING = {
    "exit_after_some_answers": CORRECT.replace(
        "    return", "    if not s.strip():\n        import os; os._exit(0)\n    return"
    ),
    "output_flood": CORRECT.replace("    return", "    print('x' * (1 << 20))\n    return"),
    "hang_with_alarm_blocked": CORRECT.replace(
        "    return",
        "    import signal\n    if not s.strip():\n"
        "        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
        "        while True:\n            pass\n    return",
    ),
}


@pytest.mark.parametrize("how", sorted(MISBEHAVING))
def test_correct_answers_from_a_run_that_does_not_end_cleanly_score_zero(
    env: agentgym.AgentEnv, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentgym.envs.code.env as code_env

    monkeypatch.setattr(code_env, "TEST_LIMITS", code_env.TEST_LIMITS.with_overrides(timeout_s=3))
    reward, text = _submit(env, MISBEHAVING[how])
    assert reward == 0.0 and "0/" in text


def test_the_same_solution_without_the_misbehaviour_scores_one(env: agentgym.AgentEnv) -> None:
    assert _submit(env, CORRECT)[0] == 1.0
