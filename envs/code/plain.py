"""Plain data across the sandbox boundary: values as tagged JSON, read back strictly.

Only plain data crosses between the scorer and a solution: ``None``, ``bool``, ``int``,
``float`` (``inf`` and ``nan`` included), ``complex``, ``str``, ``bytes`` and lists, tuples,
dicts, sets and frozensets of them. The wire form is JSON (parsed by the C decoder, fast on the
long lists some tasks return) where what JSON cannot say is a one-key object: ``{"$t": [...]}``
a tuple, ``{"$s": [...]}`` a set, ``{"$f": [...]}`` a frozenset, ``{"$d": [[k, v], ...]}`` a
dict whose keys are not all strings (or one starting with ``$``), ``{"$b": "hex"}`` bytes,
``{"$c": [re, im]}`` a complex, ``{"$x": "inf"}`` an infinite or NaN float. :func:`decode` turns
the text into fresh builtins and refuses anything else, so an object whose ``__eq__`` always says
yes cannot cross; what crosses is compared by the scorer's own builtins. The runner in the
sandbox carries its own copy of the encoder (``envs/code/harness.py``), which also turns
subclasses of the builtin types into the builtin types.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_TEXT = 4 * 1024 * 1024
"""Longest text :func:`decode` parses (the sandbox's output cap is far below it)."""

_FLOATS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class PlainDataError(ValueError):
    """The text is not plain data in the wire form (or a value has no plain-data form)."""


def tag(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready data with the tags above (exact builtin types only)."""
    kind = type(value)
    if depth > 100:
        raise PlainDataError("value nested more than 100 deep")
    if kind in (str, int, bool, type(None)):
        return value
    if kind is float:
        return value if math.isfinite(value) else {"$x": repr(value)}
    if kind is list:
        return [tag(item, depth + 1) for item in value]
    if kind is tuple:
        return {"$t": [tag(item, depth + 1) for item in value]}
    if kind is set or kind is frozenset:
        return {"$s" if kind is set else "$f": [tag(item, depth + 1) for item in value]}
    if kind is dict:
        if all(type(k) is str and not k.startswith("$") for k in value):
            return {k: tag(v, depth + 1) for k, v in value.items()}
        return {"$d": [[tag(k, depth + 1), tag(v, depth + 1)] for k, v in value.items()]}
    if kind is bytes:
        return {"$b": value.hex()}
    if kind is complex:
        return {"$c": [tag(value.real), tag(value.imag)]}
    raise PlainDataError(f"{kind.__name__} is not plain data")


def encode(value: Any) -> str:
    """The wire text of a plain ``value`` (raises :class:`PlainDataError` for anything else)."""
    try:
        return json.dumps(tag(value), ensure_ascii=True, allow_nan=False)
    except ValueError as e:  # an int too long to write
        raise PlainDataError(str(e)) from e


def _untag(obj: dict[str, Any]) -> Any:
    """``object_hook``: a tagged object back to its value; any other ``$`` key is refused."""
    if not any(key.startswith("$") for key in obj):
        return obj
    if len(obj) != 1:
        raise PlainDataError("a tagged object with more than one key")
    ((key, body),) = obj.items()
    if key in ("$t", "$s", "$f") and type(body) is list:
        return {"$t": tuple, "$s": set, "$f": frozenset}[key](body)
    if key == "$d" and type(body) is list and all(type(p) is list and len(p) == 2 for p in body):
        return {k: v for k, v in body}
    if key == "$b" and type(body) is str:
        return bytes.fromhex(body)
    if key == "$c" and type(body) is list and len(body) == 2:
        if all(type(part) is float or type(part) is int for part in body):
            return complex(body[0], body[1])
    if key == "$x" and body in _FLOATS:
        return _FLOATS[body]
    raise PlainDataError(f"a malformed or unknown tag {key!r}")


def decode(text: str) -> Any:
    """The plain value written as ``text``; :class:`PlainDataError` for anything else."""
    if len(text) > MAX_TEXT:
        raise PlainDataError(f"text longer than {MAX_TEXT} characters")
    try:
        return json.loads(text, object_hook=_untag, parse_constant=_FLOATS.__getitem__)
    except PlainDataError:
        raise
    except (ValueError, TypeError, KeyError, RecursionError, MemoryError) as e:
        raise PlainDataError(f"not plain data: {type(e).__name__}: {e}") from e
