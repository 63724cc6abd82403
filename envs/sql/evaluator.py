"""Execution-match evaluation, following Spider's test-suite ``result_eq``.

Two results are equal iff they have the same number of columns and some permutation of the
predicted columns makes the two bags of rows equal; when the gold query sorts its final result
(a top-level ``ORDER BY``) the rows must also come in the same order. Values are compared after
:func:`canonical_value`: floats rounded to a relative precision, decimals as floats, NULL equal
to NULL, booleans as integers.

The permutation search prunes first: a gold column can only map to a predicted column holding
the same multiset of values (the same sequence when order matters), then it assigns columns one
by one, checking at each step that the rows projected on the columns assigned so far still form
equal bags. Reference: ``taoyds/test-suite-sql-eval/exec_eval.py``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from .result import QueryResult
from .statements import Dialect, has_top_level_order_by

__all__ = [
    "FLOAT_DIGITS",
    "canonical_rows",
    "canonical_value",
    "order_matters",
    "result_eq",
    "results_match",
]

FLOAT_DIGITS = 7
"""Significant digits kept when comparing floats (a relative tolerance of about 1e-6)."""


class _NaN:
    """Stands for every NaN, so that NaN equals NaN inside a multiset."""

    def __repr__(self) -> str:
        return "NaN"


_NAN = _NaN()


def canonical_value(value: Any, digits: int = FLOAT_DIGITS) -> Any:
    """The form of ``value`` that equality and hashing use.

    Integral floats and decimals become ints; other floats and decimals are rounded to
    ``digits`` significant digits (and become ints if that makes them integral). Booleans become
    ints, memoryviews bytes, and NaN equals NaN. So equal numbers of different types have one
    canonical form, and the type-sorted rows of the quick check agree.
    Strings, ints, bytes and None are returned unchanged.
    """
    if value is None or isinstance(value, (str, bytes)):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal):
        if value.is_nan():
            return _NAN
        if value == value.to_integral_value() and abs(value) < 2**53:
            return int(value)
        value = float(value)
    if isinstance(value, float):
        if math.isnan(value):
            return _NAN
        if math.isinf(value):
            return value
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
        rounded = float(f"{value:.{digits}g}")
        return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


def canonical_rows(rows: Sequence[Sequence[Any]], digits: int = FLOAT_DIGITS) -> list[tuple]:
    """Apply :func:`canonical_value` to every cell of ``rows``."""
    return [tuple(canonical_value(v, digits) for v in row) for row in rows]


def order_matters(gold_sql: str, dialect: Dialect = "sqlite") -> bool:
    """Whether row order counts: the gold query has a top-level ``ORDER BY``."""
    return has_top_level_order_by(gold_sql, dialect)


def _column_candidates(
    gold: list[tuple], pred: list[tuple], width: int, ordered: bool
) -> list[list[int]] | None:
    """For each gold column, the predicted columns with the same values; None if one has none."""
    if ordered:
        gold_cols: list[Any] = [[row[i] for row in gold] for i in range(width)]
        pred_cols: list[Any] = [[row[j] for row in pred] for j in range(width)]
    else:
        gold_cols = [Counter(row[i] for row in gold) for i in range(width)]
        pred_cols = [Counter(row[j] for row in pred) for j in range(width)]
    candidates = []
    for gold_col in gold_cols:
        matches = [j for j, pred_col in enumerate(pred_cols) if pred_col == gold_col]
        if not matches:
            return None
        candidates.append(matches)
    return candidates


def _search(
    gold: list[tuple], pred: list[tuple], candidates: list[list[int]], ordered: bool
) -> bool:
    """Backtrack over column assignments, pruning on projected row bags."""
    width = len(candidates)
    order = sorted(range(width), key=lambda i: len(candidates[i]))
    assigned: list[tuple[int, int]] = []
    used: set[int] = set()

    def bags_agree() -> bool:
        if ordered:  # each column matches as a sequence, so any projection matches too
            return True
        gold_cols = [g for g, _ in assigned]
        pred_cols = [p for _, p in assigned]
        gold_bag = Counter(tuple(row[i] for i in gold_cols) for row in gold)
        pred_bag = Counter(tuple(row[j] for j in pred_cols) for row in pred)
        return gold_bag == pred_bag

    def extend(depth: int) -> bool:
        if depth == width:
            return True
        gold_col = order[depth]
        for pred_col in candidates[gold_col]:
            if pred_col in used:
                continue
            assigned.append((gold_col, pred_col))
            used.add(pred_col)
            if bags_agree() and extend(depth + 1):
                return True
            assigned.pop()
            used.discard(pred_col)
        return False

    return extend(0)


def result_eq(
    gold_rows: Sequence[Sequence[Any]],
    pred_rows: Sequence[Sequence[Any]],
    *,
    order_matters: bool,
    digits: int = FLOAT_DIGITS,
) -> bool:
    """Spider's ``result_eq`` on raw rows (two empty results are equal whatever their widths)."""
    gold = canonical_rows(gold_rows, digits)
    pred = canonical_rows(pred_rows, digits)
    if not gold and not pred:
        return True
    if len(gold) != len(pred):
        return False
    width = len(gold[0])
    if any(len(row) != width for row in gold) or any(len(row) != width for row in pred):
        return False
    if width == 0:
        return True
    # Rows with their values sorted must already agree, whatever the column order.
    def unordered(row: tuple) -> tuple:
        return tuple(sorted(row, key=lambda v: (type(v).__name__, repr(v))))

    gold_unordered = [unordered(row) for row in gold]
    pred_unordered = [unordered(row) for row in pred]
    if order_matters:
        if gold_unordered != pred_unordered:
            return False
    elif Counter(gold_unordered) != Counter(pred_unordered):
        return False
    candidates = _column_candidates(gold, pred, width, order_matters)
    if candidates is None:
        return False
    return _search(gold, pred, candidates, order_matters)


def results_match(
    gold: QueryResult,
    pred: QueryResult,
    *,
    order_matters: bool,
    digits: int = FLOAT_DIGITS,
) -> bool:
    """Compare two executor results: same width (even when empty), neither cut short, and
    :func:`result_eq` on their rows.

    A result cut at the executor's row or byte cap never matches, even one equally cut: only
    the rows before the cap could be compared, so a query with the gold's first rows and
    anything after them would pass. The check fails closed.
    """
    if gold.width != pred.width:
        return False
    if pred.truncated or gold.truncated:
        return False
    return result_eq(gold.rows, pred.rows, order_matters=order_matters, digits=digits)
