"""Test cases as data: the tasks' ``assert`` lines become calls (inputs) and a host-side check.

The bundled tasks express each test as one ``assert`` on the entry point, e.g.
``assert reverse_words('a b') == 'b a'`` or ``assert sorted(gray_code(5)) == list(range(32))``.
At load time :func:`cases_from_asserts` splits each into

- ``calls``: the arguments of every call to the entry point, evaluated here into plain data
  (:mod:`.plain`); only these go into the sandbox, where the solution is called on them;
- ``check``: the assertion with each entry-point call replaced by the value that call returned.
  It runs here, in the scorer's process, on the decoded plain values, so the expected values
  never enter the sandbox and the comparison uses the scorer's own builtins.

The test's semantics are kept exactly: the same expression, the same operators, evaluated on
values equal to what the solution returned. A test the conversion does not understand (an
entry-point call nested in another's arguments, a name outside :data:`CHECK_BUILTINS`) is an
error at load time, never a pass.
"""

from __future__ import annotations

import ast
import builtins
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from types import CodeType
from typing import Any

from .plain import PlainDataError, decode, encode

RESULTS = "_entry_point_results_"
"""The name the rewritten check reads the call results from."""
CHECK_BUILTINS: dict[str, Any] = {
    name: getattr(builtins, name)
    for name in (
        "abs", "all", "any", "bin", "bool", "chr", "dict", "divmod", "enumerate", "filter",
        "float", "frozenset", "hex", "int", "isinstance", "len", "list", "map", "max", "min",
        "oct", "ord", "pow", "range", "reversed", "round", "set", "sorted", "str", "sum",
        "tuple", "zip",
    )
}  # fmt: skip
"""The builtins a check (and an input expression) may use: pure functions of plain data."""


class CaseError(ValueError):
    """A test cannot be turned into calls and a check."""


@dataclass(frozen=True)
class Call:
    """One call of the entry point: its arguments in the plain-data wire form (:mod:`.plain`)."""

    args: str
    """The positional arguments: a JSON array of their :func:`.plain.encode` texts."""
    kwargs: str
    """The keyword arguments: a JSON object of their :func:`.plain.encode` texts."""
    refs: tuple[tuple[int, int], ...] = ()
    """``(position, index)`` pairs: positional arguments that are the value the case's call
    ``index`` returned, as in ``f(f(x))``; their place in ``args`` holds ``None``."""

    def line(self, offset: int) -> str:
        """The call as one line of the runner's input, with the case's first call at ``offset``."""
        refs = [[position, offset + index] for position, index in self.refs]
        return f"[{self.args}, {self.kwargs}, {json.dumps(refs)}]"


@dataclass(frozen=True)
class Case:
    """One test: the calls whose results it needs and the check over those results."""

    source: str
    """The original ``assert`` line (shown in feedback)."""
    calls: tuple[Call, ...]
    check: CodeType
    """The assertion's expression with ``entry_point(...)`` replaced by ``RESULTS[i]``."""

    def passes(self, values: Sequence[Any]) -> tuple[bool, str]:
        """Evaluate the check on the calls' decoded ``values``; ``(passed, why not)``."""
        scope = {"__builtins__": CHECK_BUILTINS, RESULTS: tuple(values)}
        try:
            ok = bool(eval(self.check, scope))  # noqa: S307 - the task's own expression
        except Exception as e:  # noqa: BLE001 - a check that raises is a failed test
            return False, f"{type(e).__name__}: {str(e)[:200]}"
        if ok:
            return True, ""
        shown = ", ".join(_short(ascii(v)) for v in values)
        return False, f"got {shown}" if len(values) == 1 else f"the calls returned {shown}"


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class _Rewriter(ast.NodeTransformer):
    """Replace each ``entry_point(...)`` call with ``RESULTS[i]``, collecting the calls."""

    def __init__(self, entry_point: str) -> None:
        self.entry_point = entry_point
        self.calls: list[Call] = []

    def _is_entry_call(self, node: ast.expr) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == self.entry_point
        )

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not self._is_entry_call(node):
            return self.generic_visit(node)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise CaseError("'*' or '**' in an entry-point call")
        refs: dict[int, int] = {}
        for position, arg in enumerate(node.args):
            if isinstance(arg, ast.Call) and self._is_entry_call(arg):  # f(f(x)): inner first
                self.visit_Call(arg)
                refs[position] = len(self.calls) - 1
        for part in [*node.args, *(k.value for k in node.keywords)]:
            if not self._is_entry_call(part) and any(
                isinstance(n, ast.Name) and n.id == self.entry_point for n in ast.walk(part)
            ):
                raise CaseError("the entry point deep inside an entry-point call's arguments")
        args = ["null" if i in refs else _argument(a) for i, a in enumerate(node.args)]
        kwargs = [f"{json.dumps(k.arg)}: {_argument(k.value)}" for k in node.keywords]
        self.calls.append(Call(f"[{', '.join(args)}]", "{" + ", ".join(kwargs) + "}",
                               tuple(sorted(refs.items()))))  # fmt: skip
        index = ast.Constant(len(self.calls) - 1)
        return ast.copy_location(
            ast.Subscript(ast.Name(RESULTS, ast.Load()), index, ast.Load()), node
        )


def _argument(node: ast.expr) -> str:
    """An argument expression's value in the wire form (task data, evaluated with the check
    builtins only; a value that is not a Python literal is checked to read back identically)."""
    try:
        return _literal(ast.literal_eval(node), check=False)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        pass  # not a literal: an expression such as list(range(50))
    _check_names(node)
    code = compile(ast.fix_missing_locations(ast.Expression(node)), "<argument>", "eval")
    try:
        value = eval(code, {"__builtins__": CHECK_BUILTINS})  # noqa: S307 - task data
    except Exception as e:  # noqa: BLE001 - any failure makes the test unscorable
        raise CaseError(f"an argument cannot be evaluated: {type(e).__name__}: {e}") from e
    return _literal(value)


def _literal(value: Any, check: bool = True) -> str:
    """``encode(value)``; with ``check``, verified to read back identically (a value that came
    from a Python literal always does)."""
    try:
        text = encode(value)
        same = not check or ascii(decode(text)) == ascii(value)
    except PlainDataError as e:
        raise CaseError(f"an argument is not plain data: {e}") from e
    if not same:
        raise CaseError(f"an argument does not survive a round trip: {text[:80]}")
    return text


def _check_names(node: ast.AST, allowed: frozenset[str] = frozenset()) -> None:
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    bound = {n.id for n in names if isinstance(n.ctx, ast.Store)}
    for name in ast.walk(node):
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load):
            if name.id not in CHECK_BUILTINS and name.id not in bound and name.id not in allowed:
                raise CaseError(f"the test uses {name.id!r}, which a check may not")
        if isinstance(name, ast.Attribute) and name.attr.startswith("_"):
            raise CaseError(f"the test reads the private attribute {name.attr!r}")


def case_from_assert(test: str, entry_point: str) -> Case:
    """Convert one ``assert`` line into a :class:`Case` (raises :class:`CaseError`)."""
    try:
        tree = ast.parse(test.strip())
    except SyntaxError as e:
        raise CaseError(f"not Python: {e}") from e
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        raise CaseError("not a single assert statement")
    rewriter = _Rewriter(entry_point)
    expr = rewriter.visit(tree.body[0].test)
    if not rewriter.calls:
        raise CaseError(f"the test never calls {entry_point}")
    _check_names(expr, allowed=frozenset({RESULTS}))
    code = compile(ast.fix_missing_locations(ast.Expression(expr)), "<check>", "eval")
    return Case(test.strip(), tuple(rewriter.calls), code)


@cache
def cases_from_asserts(tests: tuple[str, ...], entry_point: str) -> tuple[Case, ...]:
    """Convert a task's ``assert`` lines (cached: a task's cases are built once)."""
    cases = []
    for test in tests:
        try:
            cases.append(case_from_assert(test, entry_point))
        except CaseError as e:
            raise CaseError(f"{test!r}: {e}") from e
    return tuple(cases)

