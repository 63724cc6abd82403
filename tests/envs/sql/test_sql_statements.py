"""The SQL lexer: statement splitting, first keyword, top-level ORDER BY."""

from __future__ import annotations

import pytest

from agentgym.envs.sql.errors import SQLMultipleStatementsError, SQLSyntaxError
from agentgym.envs.sql.statements import (
    first_keyword,
    has_top_level_order_by,
    single_statement,
    split_statements,
)


@pytest.mark.parametrize(
    ("sql", "count"),
    [
        ("SELECT 1", 1),
        ("SELECT 1;", 1),
        ("SELECT 1; ", 1),
        ("SELECT 1; -- trailing comment", 1),
        ("SELECT 1; /* block */ ;;", 1),
        ("SELECT ';' FROM t", 1),
        ("SELECT 'it''s; fine'", 1),
        ('SELECT "a;b" FROM t', 1),
        ("SELECT [a;b] FROM t", 1),
        ("SELECT `a;b` FROM t", 1),
        ("SELECT 1 -- ; DROP TABLE t\n", 1),
        ("SELECT 1 /* ; DROP TABLE t */", 1),
        ("SELECT 1; DROP TABLE t", 2),
        ("SELECT 1;DROP TABLE t;", 2),
        ("SELECT '; x'; DELETE FROM t", 2),
        ("SELECT 1 /* c */; UPDATE t SET a = 1", 2),
        ("SELECT 1 -- c\n; DELETE FROM t", 2),
        ("", 0),
        ("  ;; -- nothing\n", 0),
    ],
)
def test_split_statements_sqlite(sql: str, count: int) -> None:
    assert len(split_statements(sql, "sqlite")) == count


def test_postgres_dollar_quotes_and_nested_comments() -> None:
    assert len(split_statements("SELECT $$a;b$$", "postgres")) == 1
    assert len(split_statements("SELECT $tag$ ; $x$ ; $tag$", "postgres")) == 1
    assert len(split_statements("SELECT E'a\\';b'", "postgres")) == 1
    # PostgreSQL nests block comments, SQLite does not: the same text splits differently.
    text = "SELECT 1 /* outer /* inner */ ; still comment */"
    assert len(split_statements(text, "postgres")) == 1
    assert len(split_statements(text, "sqlite")) == 2
    # $1 is a parameter, not a dollar quote, so the semicolon counts.
    assert len(split_statements("SELECT $1; SELECT 2", "postgres")) == 2


def test_single_statement_errors() -> None:
    assert single_statement("SELECT 1;  -- done") == "SELECT 1"
    with pytest.raises(SQLSyntaxError):
        single_statement("  -- only a comment")
    with pytest.raises(SQLMultipleStatementsError, match="2 statements"):
        single_statement("SELECT 1; SELECT 2")


@pytest.mark.parametrize(
    ("sql", "keyword"),
    [
        ("select 1", "SELECT"),
        ("  -- c\n /* d */ WITH x AS (SELECT 1) SELECT * FROM x", "WITH"),
        ("(SELECT 1)", "SELECT"),
        ("/* SELECT */ DROP TABLE t", "DROP"),
        ("'text'", ""),
        ("", ""),
    ],
)
def test_first_keyword(sql: str, keyword: str) -> None:
    assert first_keyword(sql) == keyword


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("SELECT a FROM t order\n  by a DESC LIMIT 3", True),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a) x", False),
        ("SELECT a, RANK() OVER (ORDER BY a) FROM t", False),
        ("WITH x AS (SELECT a FROM t ORDER BY a) SELECT a FROM x", False),
        ("WITH x AS (SELECT a FROM t) SELECT a FROM x ORDER BY a", True),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", True),
        ("SELECT 'order by' FROM t", False),
        ("SELECT a FROM t -- ORDER BY a", False),
        ('SELECT "order" FROM t', False),
        ("SELECT a AS ordering FROM t", False),
    ],
)
def test_top_level_order_by(sql: str, expected: bool) -> None:
    assert has_top_level_order_by(sql) is expected
