"""``check_rewards`` at the scorer level over the official WebArena sets and the twin (issue 35).

The official sets need the WebArena servers to be played, so ``check_rewards`` never probed
them; :func:`agentgym.testing.check_scorer` plays the answer and URL probes through the
evaluators over every task. Under the official semantics the word list, the task's own data
leaves and the URL listing the gold paths beat doing nothing (the attacks); under strict mode,
the training default, no probe class does.
"""

from __future__ import annotations

import pytest

from agentgym.envs.webarena.base_rates import task_sets
from agentgym.envs.webarena.reward_probe import check_task_set
from agentgym.testing import check_scorer

SETS = task_sets()


BIG = pytest.mark.slow  # 812 tasks: about a minute each on two cores


@pytest.mark.parametrize("name", ["twin test", "twin lite-test", "webarena-lite",
                                  pytest.param("webarena", marks=BIG),
                                  pytest.param("webarena-verified", marks=BIG)])
def test_no_probe_beats_doing_nothing_in_strict_mode(name: str) -> None:
    if name not in SETS:
        pytest.skip("the [webarena] extra's task packages are not installed")
    result = check_task_set(name, SETS[name], "strict")
    assert {p.kind for p in result.probes} >= {"constants", "answer_space", "candidates",
                                               "navigate", "numbers", "echo", "huge", "claims"}
    result.raise_for_failures()


@pytest.mark.parametrize("name", ["webarena-lite", pytest.param("webarena", marks=BIG)])
def test_the_official_semantics_fail_the_same_probes(name: str) -> None:
    if name not in SETS:
        pytest.skip("the [webarena] extra's task packages are not installed")
    failed = {p.kind for p in check_task_set(name, SETS[name], "official").failures}
    assert {"answer_space", "candidates", "navigate"} <= failed


TASKS = [{"q": f"colour {i}?", "gold": g} for i, g in enumerate(
    ["red", "blue", "green", "black", "white", "pink", "grey", "teal", "gold", "navy"])]


def test_check_scorer_catches_a_substring_scorer_and_passes_an_exact_one() -> None:
    def substring(task, answer, url):
        return float(task["gold"] in answer)

    def exact(task, answer, url):
        return float(answer.strip().lower() == task["gold"])

    bad = check_scorer("toy", TASKS, substring, question=lambda t: t["q"])
    assert {"answer_space", "candidates"} <= {p.kind for p in bad.failures}
    check_scorer("toy", TASKS, exact, question=lambda t: t["q"]).raise_for_failures()


def test_check_scorer_catches_a_url_substring_check() -> None:
    tasks = [{"url": f"http://s.test/item/{i}"} for i in range(10)]

    def contains(task, answer, url):
        return float(bool(url) and task["url"].split("://")[1] in url)

    bad = check_scorer("urls", tasks, contains)
    assert [p.kind for p in bad.failures] == ["navigate"]
