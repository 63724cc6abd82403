"""Tests as data: each ``assert`` becomes calls and a host-side check with the same meaning.

The equivalence test runs every bundled test both ways, in process: the old way (``exec`` the
``assert`` with the solution in scope) and the new way (call on the decoded inputs, send the
result through the plain-data codec, run the check), for the reference solution and for wrong
solutions, and requires the same verdict for every test.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentgym.envs.code.cases import Case, CaseError, case_from_assert
from agentgym.envs.code.env import load_tasks, task_cases
from agentgym.envs.code.plain import PlainDataError, decode, encode


def test_a_simple_assert_is_one_call_and_a_comparison() -> None:
    case = case_from_assert("assert f('a b', k=[1]) == 'b a'", "f")
    assert [(c.args, c.kwargs, c.refs) for c in case.calls] == [('["a b"]', '{"k": [1]}', ())]
    assert case.passes(["b a"]) == (True, "")
    assert case.passes(["a b"]) == (False, "got 'a b'")


def test_computed_inputs_and_expressions_over_results_keep_their_meaning() -> None:
    case = case_from_assert("assert sorted(g(list(range(3)) + [9]))[1:] == [1, 2, 9]", "g")
    assert case.calls[0].args == "[[0, 1, 2, 9]]"
    assert case.passes([[9, 2, 0, 1]])[0] and not case.passes([[0, 1, 2]])[0]
    pair = case_from_assert("assert all(a < b for a, b in zip(g(6), g(6)[1:]))", "g")
    assert len(pair.calls) == 2 and pair.passes([[1, 2], [1, 2]])[0]


def test_a_call_on_a_result_takes_that_result_as_its_input() -> None:
    case = case_from_assert("assert h(h(5)) == 5", "h")
    inner, outer = case.calls
    assert inner.args == "[5]" and outer.refs == ((0, 0),)
    assert outer.line(offset=7) == "[[null], {}, [[0, 7]]]"


def test_is_checks_need_the_real_singletons() -> None:
    case = case_from_assert("assert p('') is True", "p")
    assert case.passes([True])[0] and not case.passes([1])[0]


@pytest.mark.parametrize(
    ("test", "why"),
    [
        ("f(1) == 2", "not a single assert"),
        ("assert g(1) == 2", "never calls f"),
        ("assert f(*[1]) == 2", r"'\*' or '\*\*'"),
        ("assert f([f(1)]) == 2", "deep inside"),
        ("assert f(1) == os.sep", "'os'"),
        ("assert f(1).__class__ is int", "private attribute"),
        ("assert f(1) == (", "not Python"),
        ("assert f(object()) == 1", "'object'"),
        ("assert f(1 / 0) == 1", "cannot be evaluated: ZeroDivisionError"),
        ("assert f({[1]: 2}) == 1", "cannot be evaluated: TypeError"),
    ],
)
def test_a_test_the_scorer_cannot_check_is_an_error(test: str, why: str) -> None:
    with pytest.raises(CaseError, match=why):
        case_from_assert(test, "f")


def test_a_check_that_raises_fails_the_test() -> None:
    case = case_from_assert("assert f(1)[0] == 1", "f")
    assert case.passes([None]) == (False, "TypeError: 'NoneType' object is not subscriptable")


# -- every bundled test means the same thing both ways ---------------------------------------


def _new_verdicts(func: Any, cases: tuple[Case, ...]) -> list[bool]:
    verdicts = []
    for case in cases:
        values: list[Any] = []
        try:
            for call in case.calls:
                args, kwargs, refs = decode(call.line(0))
                for position, index in refs:
                    args[position] = decode(encode(values[index]))
                values.append(decode(encode(func(*args, **kwargs))))
        except (PlainDataError, Exception):  # a failing call fails the case
            verdicts.append(False)
            continue
        verdicts.append(case.passes(values)[0])
    return verdicts


def _old_verdicts(namespace: dict[str, Any], cases: tuple[Case, ...]) -> list[bool]:
    verdicts = []
    for case in cases:
        try:
            exec(compile(case.source, "test", "exec"), dict(namespace))  # noqa: S102
            verdicts.append(True)
        except Exception:  # noqa: BLE001
            verdicts.append(False)
    return verdicts


WRONG = {
    "none": "def {f}(*a, **k):\n    return None",
    "zero": "def {f}(*a, **k):\n    return 0",
    "echo": "def {f}(*a, **k):\n    return a[0] if a else None",
    "empty": "def {f}(*a, **k):\n    return type(a[0])() if a else []",
}


def test_every_bundled_test_gives_the_same_verdict_both_ways() -> None:
    differing, n_tests, n_fail = [], 0, 0
    for task in load_tasks():
        entry = task.data["entry_point"]
        cases = task_cases(task, "visible") + task_cases(task, "hidden")
        for name, source in {"reference": task.data["canonical_solution"], **WRONG}.items():
            namespace: dict[str, Any] = {"__name__": "solution"}
            exec(source.replace("{f}", entry), namespace)  # noqa: S102 - our own solutions
            old = _old_verdicts(namespace, cases)
            new = _new_verdicts(namespace[entry], cases)
            n_tests += len(cases)
            n_fail += old.count(False)
            differing += [(task.task_id, name, c.source)
                          for c, a, b in zip(cases, old, new, strict=True) if a != b]  # fmt: skip
            if name == "reference":
                assert all(new), task.task_id
    assert n_tests > 5000 and n_fail > n_tests // 2  # the wrong solutions do fail
    assert not differing, differing[:10]
