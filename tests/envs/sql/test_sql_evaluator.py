"""Spider test-suite result comparison, on hand-written tricky cases."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agentgym.envs.sql.evaluator import canonical_value, order_matters, result_eq, results_match
from agentgym.envs.sql.result import QueryResult


def eq(gold: list[tuple], pred: list[tuple], ordered: bool = False) -> bool:
    return result_eq(gold, pred, order_matters=ordered)


def test_identical_and_empty() -> None:
    assert eq([(1, "a")], [(1, "a")])
    assert eq([], [])
    assert not eq([(1,)], [])
    assert not eq([], [(1,)])


def test_row_order_only_counts_when_ordered() -> None:
    gold = [(1, "a"), (2, "b")]
    pred = [(2, "b"), (1, "a")]
    assert eq(gold, pred)
    assert not eq(gold, pred, ordered=True)
    assert eq(gold, list(gold), ordered=True)


def test_column_permutation() -> None:
    assert eq([(1, "a"), (2, "b")], [("a", 1), ("b", 2)])
    assert eq([(1, "a"), (2, "b")], [("b", 2), ("a", 1)])
    assert eq([(1, "a"), (2, "b")], [("a", 1), ("b", 2)], ordered=True)
    assert not eq([(1, "a"), (2, "b")], [("b", 2), ("a", 1)], ordered=True)


def test_column_permutation_must_be_one_for_all_rows() -> None:
    # Each row matches gold under some permutation, but no single permutation fits both rows.
    gold = [(1, 2), (3, 4)]
    pred = [(1, 2), (4, 3)]
    assert not eq(gold, pred)


def test_duplicates_are_a_bag_not_a_set() -> None:
    assert not eq([(1,), (1,), (2,)], [(1,), (2,), (2,)])
    assert not eq([(1,), (1,)], [(1,)])
    assert eq([(1,), (1,), (2,)], [(2,), (1,), (1,)])


def test_different_column_counts() -> None:
    assert not eq([(1, 2)], [(1,)])
    assert not eq([(1,)], [(1, 1)])
    empty2 = QueryResult(("a", "b"), ())
    empty1 = QueryResult(("a",), ())
    assert eq([], [])  # Spider: two empty results are equal whatever their widths
    assert not results_match(empty2, empty1, order_matters=False)
    assert results_match(empty2, QueryResult(("x", "y"), ()), order_matters=False)


def test_nulls() -> None:
    assert eq([(None, 1)], [(None, 1)])
    assert eq([(None, 1)], [(1, None)])
    assert not eq([(None,)], [(0,)])
    assert not eq([(None,)], [("",)])
    assert not eq([(None, None), (1, 2)], [(None, 1), (None, 2)])


def test_floats_and_numeric_types() -> None:
    assert eq([(0.1 + 0.2,)], [(0.3,)])
    assert eq([(1 / 3,)], [(0.3333333333,)])
    assert eq([(Decimal("2.50"),)], [(2.5,)])
    assert eq([(Decimal("7"),)], [(7,)])
    assert eq([(5.0, 4)], [(5, 4.0)])  # equal numbers of different types sort the same way
    assert eq([(True,)], [(1,)])
    assert not eq([(2.34,)], [(2.35,)])
    assert not eq([(1.0,)], [("1",)])
    assert eq([(float("nan"),)], [(float("nan"),)])
    assert eq([(1e20,)], [(1.0000000001e20,)])


def test_canonical_value() -> None:
    assert canonical_value(3.0) == 3 and isinstance(canonical_value(3.0), int)
    assert canonical_value(Decimal("1.50")) == 1.5
    assert canonical_value(memoryview(b"ab")) == b"ab"
    assert canonical_value(-0.0) == 0
    assert canonical_value("x") == "x"


def test_permutation_search_prunes_wide_results() -> None:
    width = 9
    gold = [tuple(r * width + c for c in range(width)) for r in range(50)]
    pred = [tuple(reversed(row)) for row in gold]
    assert eq(gold, pred)
    assert eq(gold, pred, ordered=True)
    # identical columns everywhere: many permutations are candidates, the first one fits
    same = [tuple([r] * width) for r in range(30)]
    assert eq(same, list(reversed(same)))
    broken = [row[:-1] + (-1,) for row in pred]
    assert not eq(gold, broken)


def test_ambiguous_columns_need_backtracking() -> None:
    # Columns 0 and 1 of gold hold the same multiset, so pruning leaves two candidates each;
    # only one assignment makes the rows agree.
    gold = [(1, 2, "x"), (2, 1, "y")]
    pred = [("x", 2, 1), ("y", 1, 2)]
    assert eq(gold, pred)
    assert not eq(gold, [("x", 1, 2), ("x", 2, 1)])


def test_truncated_prediction_never_matches() -> None:
    gold = QueryResult(("a",), ((1,), (2,)))
    pred = QueryResult(("a",), ((1,), (2,)), truncated=True)
    assert not results_match(gold, pred, order_matters=False)
    assert results_match(gold, QueryResult(("b",), ((2,), (1,))), order_matters=False)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3) x", False),
        ("SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t", False),
    ],
)
def test_order_matters(sql: str, expected: bool) -> None:
    assert order_matters(sql) is expected
