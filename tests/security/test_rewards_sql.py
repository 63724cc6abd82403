"""Reward review of the SQL family: execution match pays for the right result only."""

from __future__ import annotations

import json
import re

import pytest

from agentgym.envs.sql.evaluator import result_eq, results_match
from agentgym.envs.sql.result import QueryResult
from agentgym.testing import Probe, check_rewards


def _submit(query: str) -> str:
    return f"<tool_call>{json.dumps({'name': 'submit', 'arguments': {'query': query}})}</tool_call>"


def _tables(ctx) -> list[str]:
    return re.findall(r'CREATE TABLE\s+"?(\w+)"?', ctx.observation, re.IGNORECASE)


def _sql_probes() -> list[Probe]:
    """All rows of every table, a union of every table's first column, constants."""

    def all_rows(ctx):
        return [(f"SELECT * FROM {t}", [_submit(f"SELECT * FROM {t}")]) for t in _tables(ctx)]

    def union(ctx):
        parts = [f"SELECT * FROM (SELECT * FROM {t} LIMIT 1000)" for t in _tables(ctx)]
        cols = [f"SELECT {c} FROM {t}" for t in _tables(ctx) for c in ("rowid",)]
        return [("union of first rows", [_submit(" UNION ".join(parts))]),
                ("union of rowids", [_submit(" UNION ALL ".join(cols))])]

    def constants(ctx):
        return [(q, [_submit(q)]) for q in ("SELECT NULL", "SELECT ''", "SELECT 0")]

    return [Probe("all rows", "candidates", all_rows), Probe("union", "candidates", union),
            Probe("constant", "numbers", constants)]


@pytest.mark.parametrize("env_id", ["sql/spider-lite-v0", "sql/spider-lite-easy-v0"])
def test_sql_specific_probes_earn_nothing(env_id):
    result = check_rewards(env_id, seeds=4, extra_probes=_sql_probes())
    assert result.passed, str(result)


def _result(rows, truncated=False, width=None):
    width = width if width is not None else (len(rows[0]) if rows else 1)
    return QueryResult(tuple(f"c{i}" for i in range(width)), tuple(map(tuple, rows)), truncated)


def test_a_cut_short_result_never_matches():
    """Both results cut at the row cap: only their first rows were compared (a query with the
    gold's first rows and anything after them matched)."""
    gold = _result([(i,) for i in range(100)], truncated=True)
    pred = _result([(i,) for i in range(100)], truncated=True)
    assert not results_match(gold, pred, order_matters=False)
    assert not results_match(_result([(1,)]), _result([(1,)], truncated=True),
                             order_matters=False)


@pytest.mark.parametrize("pred", [
    [(1,), (2,), (3,)],           # the gold rows plus a candidate
    [(1,), (2,), (2,)],           # a duplicate instead of a row
    [(1,)],                       # a row missing
    [(1, 1), (2, 2)],             # an extra column
], ids=["extra row", "duplicate", "missing row", "extra column"])
def test_near_misses_fail(pred):
    assert not result_eq([(1,), (2,)], pred, order_matters=False)


def test_order_counts_only_when_the_gold_sorts():
    assert result_eq([(1,), (2,)], [(2,), (1,)], order_matters=False)
    assert not result_eq([(1,), (2,)], [(2,), (1,)], order_matters=True)


def test_an_empty_result_does_not_match_one_of_another_width():
    assert not results_match(_result([], width=2), _result([], width=1), order_matters=False)
