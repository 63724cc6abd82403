"""Degenerate answers: what a solution returns without solving its task; no hidden test may pass
one.

A hidden test is weak when a value other than the reference's passes it: a length check
(``len(f(x)) == 3`` takes any three items), an ``all()`` over a result that may be empty, an
identity round trip (``f(f(x)) == x`` takes ``lambda x: x``). A weak test pays a fraction of the
reward for nothing and, under the all-pass reward, lets a near-miss through. The probes:

- ``constant:<v>``: every call returns one type default or small constant (:data:`CONSTANTS`);
- ``identity``: each call returns its first argument (round trips pass it);
- ``same-length``: each call returns a filler as long as the reference's value (length checks).

A probe whose values equal the reference's (``False`` where the answer is ``False``) is no
evidence and is skipped. The reference values come from running the task's reference solution in
this process: only the bundled, trusted tasks are probed (``envs/code/data/build.py`` at build
time, and the security suite), never a model's code.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from .cases import Case, cases_from_asserts
from .plain import decode

CONSTANTS: tuple[Any, ...] = (None, False, True, 0, 1, -1, 0.0, "", b"", [], (), {}, set())
"""The constant answers the probe tries (type defaults and the smallest values)."""


def _arguments(case: Case, index: int, values: Sequence[Any]) -> tuple[list[Any], dict[str, Any]]:
    call = case.calls[index]
    args = [None if a is None else decode(json.dumps(a)) for a in json.loads(call.args)]
    kwargs = {k: decode(json.dumps(v)) for k, v in json.loads(call.kwargs).items()}
    for position, ref in call.refs:
        args[position] = values[ref]
    return args, kwargs


def reference_values(solution: str, entry_point: str, case: Case) -> list[Any]:
    """What the (trusted) reference ``solution`` returns for each call of ``case``."""
    namespace: dict[str, Any] = {"__name__": "reference"}
    exec(compile(solution, "<reference>", "exec"), namespace)  # noqa: S102 - trusted data
    function = namespace[entry_point]
    values: list[Any] = []
    for i in range(len(case.calls)):
        args, kwargs = _arguments(case, i, values)
        values.append(function(*args, **kwargs))
    return values


def _filler(value: Any) -> Any:
    if isinstance(value, str):
        return "x" * len(value)
    if isinstance(value, (list, tuple)):
        return type(value)([0] * len(value))
    return value


def degenerate_answers(case: Case, reference: Sequence[Any]) -> Iterator[tuple[str, list[Any]]]:
    """``(probe, values)`` for each degenerate answer to ``case`` that differs from
    ``reference`` (the reference solution's values)."""
    n = len(case.calls)
    candidates: list[tuple[str, list[Any]]] = [(f"constant:{c!r}", [c] * n) for c in CONSTANTS]
    identity: list[Any] = []
    for i in range(n):
        args, kwargs = _arguments(case, i, identity)
        identity.append(args[0] if args else next(iter(kwargs.values()), None))
    candidates.append(("identity", identity))
    candidates.append(("same-length", [_filler(v) for v in reference]))
    for name, values in candidates:
        if values != list(reference):
            yield name, values


def weak_tests(solution: str, entry_point: str, tests: Sequence[str]) -> list[tuple[str, str]]:
    """``(test, probe)`` for each of ``tests`` that some degenerate answer passes."""
    weak = []
    for case in cases_from_asserts(tuple(tests), entry_point):
        reference = reference_values(solution, entry_point, case)
        for name, values in degenerate_answers(case, reference):
            if case.passes(values)[0]:
                weak.append((case.source, name))
                break
    return weak


def constant_scores(cases: Sequence[Case]) -> dict[str, float]:
    """The fraction of ``cases`` each constant answer passes (the fraction reward it earns)."""
    return {repr(c): sum(case.passes([c] * len(case.calls))[0] for case in cases) / len(cases)
            for c in CONSTANTS}


__all__ = ["CONSTANTS", "constant_scores", "degenerate_answers", "reference_values", "weak_tests"]
