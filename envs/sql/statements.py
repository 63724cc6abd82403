"""Light SQL lexing: find the statement, its first keyword and a top-level ORDER BY.

This is not a parser. It only tells code apart from string literals, quoted identifiers and
comments, and tracks parenthesis depth, which is all the executors need to refuse a second
statement and all the evaluator needs to decide whether row order counts. Both dialects are
handled: SQLite (``[ident]`` and backquoted identifiers, flat block comments) and PostgreSQL
(``$tag$`` dollar quotes, ``E'...'`` escapes, nested block comments).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal

from .errors import SQLMultipleStatementsError, SQLSyntaxError

__all__ = [
    "Dialect",
    "code_segments",
    "first_keyword",
    "has_top_level_order_by",
    "single_statement",
    "split_statements",
]

Dialect = Literal["sqlite", "postgres"]

_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")
_SPECIAL = {
    "sqlite": re.compile(r"['\"`\[]|--|/\*"),
    "postgres": re.compile(r"['\"$]|--|/\*"),
}
"""Where a literal, quoted identifier or comment may start, per dialect."""
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def _end_of_quoted(sql: str, start: int, quote: str, backslash: bool = False) -> int:
    """Index just past the quote that closes the literal opened at ``start``."""
    i = start + 1
    n = len(sql)
    while i < n:
        ch = sql[i]
        if backslash and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if i + 1 < n and sql[i + 1] == quote:  # doubled quote is an escaped quote
                i += 2
                continue
            return i + 1
        i += 1
    return n


def _end_of_block_comment(sql: str, start: int, nested: bool) -> int:
    """Index just past the ``*/`` closing the comment opened at ``start``."""
    depth = 1
    i = start + 2
    n = len(sql)
    while i < n:
        if nested and sql.startswith("/*", i):
            depth += 1
            i += 2
        elif sql.startswith("*/", i):
            depth -= 1
            i += 2
            if depth == 0:
                return i
        else:
            i += 1
    return n


def code_segments(sql: str, dialect: Dialect = "sqlite") -> Iterator[tuple[str, int, int]]:
    """Yield ``(kind, start, end)`` spans; kind is code, string, ident or comment."""
    i = 0
    n = len(sql)
    code_start = 0
    special = _SPECIAL[dialect]
    while i < n:
        found = special.search(sql, i)
        if found is None:
            break
        i = found.start()
        ch = sql[i]
        end = -1
        kind = ""
        if ch == "'":
            backslash = dialect == "postgres" and i > 0 and sql[i - 1] in "eE"
            kind, end = "string", _end_of_quoted(sql, i, "'", backslash)
        elif ch == '"':
            kind, end = "ident", _end_of_quoted(sql, i, '"')
        elif ch == "`" and dialect == "sqlite":
            kind, end = "ident", _end_of_quoted(sql, i, "`")
        elif ch == "[" and dialect == "sqlite":
            close = sql.find("]", i + 1)
            kind, end = "ident", (n if close < 0 else close + 1)
        elif sql.startswith("--", i):
            close = sql.find("\n", i)
            kind, end = "comment", (n if close < 0 else close + 1)
        elif sql.startswith("/*", i):
            kind, end = "comment", _end_of_block_comment(sql, i, dialect == "postgres")
        elif ch == "$" and dialect == "postgres":
            match = _DOLLAR_TAG.match(sql, i)
            if match and not (i > 0 and (sql[i - 1].isalnum() or sql[i - 1] == "_")):
                close = sql.find(match.group(0), match.end())
                kind = "string"
                end = n if close < 0 else close + len(match.group(0))
        if end < 0:
            i += 1
            continue
        if code_start < i:
            yield "code", code_start, i
        yield kind, i, end
        i = code_start = end
    if code_start < n:
        yield "code", code_start, n


def split_statements(sql: str, dialect: Dialect = "sqlite") -> list[str]:
    """Split ``sql`` at top-level semicolons; drop pieces that hold only comments or spaces."""
    pieces: list[str] = []
    current: list[str] = []
    has_code = False
    for kind, start, end in code_segments(sql, dialect):
        text = sql[start:end]
        if kind != "code":
            current.append(text)
            has_code = has_code or kind != "comment"
            continue
        parts = text.split(";")
        for index, part in enumerate(parts):
            if index > 0:
                if has_code:
                    pieces.append("".join(current).strip())
                current, has_code = [], False
            current.append(part)
            has_code = has_code or bool(part.strip())
    if has_code:
        pieces.append("".join(current).strip())
    return pieces


def single_statement(sql: str, dialect: Dialect = "sqlite") -> str:
    """Return the one statement in ``sql`` (trailing ``;`` removed) or raise.

    Raises:
        SQLSyntaxError: there is no statement at all.
        SQLMultipleStatementsError: there is more than one statement.
    """
    pieces = split_statements(sql, dialect)
    if not pieces:
        raise SQLSyntaxError("empty query: send exactly one SELECT statement")
    if len(pieces) > 1:
        raise SQLMultipleStatementsError(
            f"{len(pieces)} statements sent: send exactly one statement per query"
        )
    return pieces[0]


def first_keyword(sql: str, dialect: Dialect = "sqlite") -> str:
    """The first word of code in ``sql``, upper-cased, skipping comments and ``(``; or ``""``."""
    for kind, start, end in code_segments(sql, dialect):
        if kind == "comment":
            continue
        if kind != "code":
            return ""
        text = sql[start:end].lstrip(" \t\r\n(")
        if not text:
            continue
        match = _WORD.match(text)
        return match.group(0).upper() if match else ""
    return ""


def has_top_level_order_by(sql: str, dialect: Dialect = "sqlite") -> bool:
    """Whether ``sql`` sorts its final result: ORDER BY outside every parenthesis."""
    depth = 0
    previous = ""
    for kind, start, end in code_segments(sql, dialect):
        if kind == "comment":
            continue
        if kind != "code":
            previous = ""
            continue
        for token in re.finditer(r"[()]|[A-Za-z_][A-Za-z0-9_$]*", sql[start:end]):
            word = token.group(0)
            if word == "(":
                depth += 1
                previous = ""
            elif word == ")":
                depth = max(depth - 1, 0)
                previous = ""
            else:
                upper = word.upper()
                if depth == 0 and previous == "ORDER" and upper == "BY":
                    return True
                previous = upper
    return False
