"""Plain data across the sandbox boundary: values as Python literals, read back strictly.

Only plain data crosses between the scorer and a solution: ``None``, ``bool``, ``int``,
``float`` (``inf`` and ``nan`` included), ``complex``, ``str``, ``bytes`` and lists, tuples,
dicts, sets and frozensets of them. Inputs go into the sandbox as :func:`encode` text; return
values come back as the text the in-sandbox runner writes (``ascii()`` of the value), and
:func:`decode` turns that text into fresh builtins. Nothing else is accepted: no name but
``inf``/``nan``, no call but ``set()``/``frozenset(...)``, no attribute, no operator but a sign
and the ``+``/``-`` of a complex number. An object whose ``__eq__`` always says yes has no literal
form, so it cannot cross; what crosses is compared by the scorer's own builtins.
"""

from __future__ import annotations

import ast
import math
from typing import Any

MAX_TEXT = 4 * 1024 * 1024
"""Longest text :func:`decode` parses (the sandbox's output cap is far below it)."""

_ATOMS = (type(None), bool, int, float, complex, str, bytes)
_NAMES = {"inf": math.inf, "nan": math.nan}


class PlainDataError(ValueError):
    """The text is not a plain-data literal (or a value has no plain-data form)."""


def encode(value: Any) -> str:
    """The literal of a plain ``value`` (raises :class:`PlainDataError` for anything else)."""
    _check(value, depth=0)
    return ascii(value)


def _check(value: Any, depth: int) -> None:
    if depth > 100:
        raise PlainDataError("value nested more than 100 deep")
    kind = type(value)
    if kind in _ATOMS:
        return
    if kind in (list, tuple, set, frozenset):
        for item in value:
            _check(item, depth + 1)
    elif kind is dict:
        for key, item in value.items():
            _check(key, depth + 1)
            _check(item, depth + 1)
    else:
        raise PlainDataError(f"{kind.__name__} is not plain data")


def decode(text: str) -> Any:
    """The plain value written as ``text``; :class:`PlainDataError` for anything else."""
    if len(text) > MAX_TEXT:
        raise PlainDataError(f"literal longer than {MAX_TEXT} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return _value(tree.body)
    except PlainDataError:
        raise
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError) as e:
        raise PlainDataError(f"not a plain-data literal: {type(e).__name__}: {e}") from e


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in _ATOMS:
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        number = _value(node.operand)
        if type(number) not in (int, float, complex):
            raise PlainDataError("a sign on something other than a number")
        return -number if isinstance(node.op, ast.USub) else +number
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        real, imag = _value(node.left), _value(node.right)  # ascii(1+2j) == '(1+2j)'
        if type(real) not in (int, float) or type(imag) is not complex:
            raise PlainDataError("an operator outside a complex literal")
        return real + imag if isinstance(node.op, ast.Add) else real - imag
    if isinstance(node, ast.List):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(item) for item in node.elts)
    if isinstance(node, ast.Set):
        return {_value(item) for item in node.elts}
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise PlainDataError("'**' in a dict literal")
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("set", "frozenset")
        and not node.keywords
        and len(node.args) <= 1
    ):
        items = _value(node.args[0]) if node.args else ()
        if type(items) not in (list, tuple, set, frozenset):
            raise PlainDataError(f"{node.func.id}() of something other than a collection")
        return set(items) if node.func.id == "set" else frozenset(items)
    raise PlainDataError(f"{type(node).__name__} is not allowed in plain data")
