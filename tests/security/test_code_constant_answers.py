"""Attack: constant answers earning code reward. Under the old default (the share of hidden
tests passed) returning a type's default earned 0.19 on average over the test split and 0.78 on
one task, and some hidden tests were weak (a length check, an ``all()`` over an empty result, an
identity round trip). The default reward is now all-pass (``code/py-functions-v1``), the
fraction an explicit variant, and no hidden test passes a degenerate answer."""

from __future__ import annotations

import statistics

import pytest

import agentgym
from agentgym import ToolCall
from agentgym.envs.code.env import load_tasks, task_cases
from agentgym.envs.code.probes import CONSTANTS, constant_scores, weak_tests
from agentgym.sandboxes.bubblewrap import bubblewrap_available

TASKS = list(load_tasks())


def test_the_default_code_env_pays_only_all_pass_and_the_fraction_is_a_named_variant() -> None:
    default = agentgym.make("code", sandbox="bubblewrap")
    fraction = agentgym.make("code/py-functions-fraction-v1", sandbox="bubblewrap")
    try:
        assert agentgym.spec("code").id == "code/py-functions-v1"
        assert default.unwrapped.reward_mode == "all_pass"
        assert fraction.unwrapped.reward_mode == "fraction"
    finally:
        default.close()
        fraction.close()


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id)
def test_no_hidden_test_passes_a_degenerate_answer(task) -> None:
    weak = weak_tests(task.data["canonical_solution"], task.data["entry_point"],
                      task.data["hidden_tests"])
    assert weak == [], weak


def test_no_constant_passes_every_hidden_test_of_any_task() -> None:
    """The all-pass reward a constant earns: 0 on every task, for every constant."""
    earned = {t.task_id: max(constant_scores(task_cases(t, "hidden")).values()) for t in TASKS}
    assert all(score < 1.0 for score in earned.values()), earned
    fractions = [earned[t.task_id] for t in TASKS if t.split == "test"]
    assert statistics.mean(fractions) < 0.3  # what the fraction variant still pays: documented


@pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
@pytest.mark.parametrize("constant", [False, 0, "", []], ids=repr)
def test_a_constant_submission_earns_zero_on_the_default_env(constant) -> None:
    env = agentgym.make("code", split="test", sandbox="bubblewrap")
    try:
        for task_id in ("code-0091", "code-0020", "code-0087"):
            task = env.unwrapped.task_set.get(task_id)
            env.reset(options={"task_id": task_id})
            code = f"def {task.data['entry_point']}(*a, **k):\n    return {constant!r}\n"
            _, reward, terminated, _, info = env.step([ToolCall("submit", {"code": code})])
            assert terminated and reward == 0.0 and not info["success"], (task_id, info)
    finally:
        env.close()


def test_the_probe_catches_the_classes_it_names() -> None:
    """Toy tests of each weak kind are flagged; a pinned test is not."""
    solution = "def f(x):\n    return list(range(x))\n"
    assert weak_tests(solution, "f", ["assert len(f(3)) == 3"])[0][1] == "same-length"
    empty_all = weak_tests(solution, "f", ["assert all(v >= 0 for v in f(4))"])
    assert empty_all[0][1].startswith("constant")
    involution = "def g(x):\n    return -x\n"
    assert weak_tests(involution, "g", ["assert g(g(5)) == 5"])[0][1] == "identity"
    assert weak_tests(solution, "f", ["assert f(3) == [0, 1, 2]"]) == []
    assert None in CONSTANTS and [] in CONSTANTS
