"""The code env on the real bubblewrap sandbox (Docker in the docker-marked test)."""

import pytest

import agentgym
from agentgym import ToolCall
from agentgym.envs.code.env import load_tasks, split_tests


def call(name, code):
    return [ToolCall(name, {"code": code})]


@pytest.fixture(scope="module")
def env():
    e = agentgym.make("code", split="test", sandbox="bubblewrap")
    yield e
    e.close()


def _expert_scores(every: int) -> dict[str, tuple[float, bool, bool]]:
    """The expert's (reward, terminated, success) on every ``every``-th task of both splits."""
    scores = {}
    for split in ("train", "test"):
        env = agentgym.make("code", split=split, sandbox="bubblewrap")
        for task in list(env.unwrapped.task_set)[::every]:
            env.reset(options={"task_id": task.task_id})
            for action in env.unwrapped.expert_actions(task):
                _, reward, terminated, _, info = env.step(action)
            scores[task.task_id] = (reward, terminated, info["success"])
        env.close()
    return scores


def test_expert_scores_one_on_a_sample_of_tasks():
    scores = _expert_scores(every=10)
    assert len(scores) >= 15
    assert {v for v in scores.values()} == {(1.0, True, True)}


@pytest.mark.slow  # every task: about a minute on a 2-core machine
def test_expert_scores_one_on_every_task():
    scores = _expert_scores(every=1)
    assert len(scores) == len(load_tasks()) >= 150
    assert {v for v in scores.values()} == {(1.0, True, True)}


def test_binary_default_and_fraction_variant(env):
    task = next(t for t in env.unwrapped.task_set if t.task_id == "code-0091")
    env.reset(options={"task_id": task.task_id})
    name = task.data["entry_point"]
    wrong = call("submit", f"def {name}(*a, **k):\n    return False")
    _, reward, terminated, _, info = env.step(wrong)
    assert terminated and reward == 0.0 and 0 < info["tests_passed"] < info["tests_total"]
    fraction = agentgym.make("code/py-functions-fraction-v1", split="test", sandbox="bubblewrap")
    fraction.reset(options={"task_id": task.task_id})
    _, r, *_ = fraction.step(wrong)
    assert r == pytest.approx(info["tests_passed"] / info["tests_total"]) and r > 0
    fraction.close()


def test_fenced_block_counts_as_submit(env):
    task = env.unwrapped.task_set[1]
    env.reset(options={"task_id": task.task_id})
    answer = f"Here you go:\n```python\n{task.data['canonical_solution']}\n```"
    obs, reward, terminated, *_ = env.step(answer)
    assert terminated and reward == 1.0 and "hidden tests passed" in obs["text"]


def test_run_python_and_visible_tests(env):
    env.reset(seed=0)
    obs, reward, terminated, *_ = env.step(call("run_python", "print(sum(range(10)))"))
    assert "45" in obs["text"] and "Exited with code 0" in obs["text"] and not terminated
    obs, *_ = env.step(call("run_tests", "def nothing(): pass"))
    assert "0/" in obs["text"] and "FAILED" in obs["text"]


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        ("while True:\n    pass", "TimeoutError"),
        ("import os\nos._exit(0)", "the program ended before the tests ran"),
        ("def f(:\n", "SyntaxError"),
        ("raise SystemExit(3)", "SystemExit"),
        ("x = 'a' * (10**10)", "MemoryError"),
    ],
)
def test_hostile_or_broken_solutions_fail_cleanly(env, code, fragment):
    env.reset(seed=1)
    obs, reward, terminated, *_ = env.step(call("run_tests", code))
    assert fragment in obs["text"] and not terminated


def test_split_tests_keeps_continuation_lines():
    src = "assert f(1) == 2\nassert f(\n    3) == 4\n\nassert g()"
    assert split_tests(src) == ["assert f(1) == 2", "assert f(\n    3) == 4", "assert g()"]


@pytest.mark.docker
def test_expert_on_docker_backend(docker_engine):
    env = agentgym.make("code", split="test", sandbox="docker")
    for task in list(env.unwrapped.task_set)[:5]:
        env.reset(options={"task_id": task.task_id})
        for action in env.unwrapped.expert_actions(task):
            _, reward, *_ = env.step(action)
        assert reward == 1.0, task.task_id
    env.close()
