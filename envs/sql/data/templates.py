"""Question templates and their instantiation with values drawn from a database.

A template holds a question and a gold query with ``{name}`` holes, and for each hole a query
that lists candidate values. Holes are filled in order, so a later candidate query may use an
earlier value (as a SQL literal). Every instance is checked before it is kept: the gold query
runs, returns at least one row, not only NULLs, not a lone zero, and returns the same rows when
SQLite scans tables backwards (``PRAGMA reverse_unordered_selects``), which catches answers that
depend on tie order. A template that cannot yield its quota of good instances stops the build.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Literal

from ..evaluator import order_matters, result_eq

__all__ = ["BuildError", "Draft", "Template", "instantiate", "sql_literal", "t"]

Difficulty = Literal["easy", "medium", "hard"]
_MAX_TRIES = 60


class BuildError(RuntimeError):
    """The generated data or a task failed a check; the build stops."""


@dataclass(frozen=True)
class Template:
    """A question and gold query with holes, and where to draw each hole's value."""

    difficulty: Difficulty
    """easy: one table; medium: joins and aggregates; hard: nesting, windows, sets, CTEs."""
    question: str
    """Question text; ``{name}`` holes get the raw value."""
    sql: str
    """Gold query; ``{name}`` holes get the value as a SQL literal."""
    params: tuple[tuple[str, str], ...] = ()
    """``(name, candidate query)`` pairs, filled in order."""
    count: int = 1
    """How many instances to produce."""
    engines: tuple[str, ...] = ("sqlite", "postgres")
    """Engines on which the gold query is valid."""


@dataclass(frozen=True)
class Draft:
    """One checked instance of a template, before it gets a task id and split."""

    question: str
    gold_sql: str
    difficulty: Difficulty
    single_value: bool
    engines: tuple[str, ...] = field(default=("sqlite", "postgres"))


def t(
    difficulty: Difficulty,
    question: str,
    sql: str,
    count: int | None = None,
    engines: tuple[str, ...] = ("sqlite", "postgres"),
    **params: str,
) -> Template:
    """Shorthand constructor: holes as keyword arguments; ``count`` defaults to 3 with holes."""
    return Template(
        difficulty=difficulty,
        question=question,
        sql=" ".join(sql.split()),
        params=tuple(params.items()),
        count=count if count is not None else (3 if params else 1),
        engines=engines,
    )


def sql_literal(value: Any) -> str:
    """``value`` written as a SQL literal valid in SQLite and PostgreSQL."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _display(value: Any) -> str:
    """``value`` as it appears in a question."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _trivial(rows: list[tuple]) -> str | None:
    """Why a gold result is unusable, or None if it is fine."""
    if not rows:
        return "empty result"
    if all(v is None for row in rows for v in row):
        return "only NULLs"
    if len(rows) == 1 and len(rows[0]) == 1 and rows[0][0] == 0:
        return "a lone zero"
    return None


def check_gold(conn: sqlite3.Connection, sql: str) -> tuple[list[tuple], str | None]:
    """Run ``sql`` forwards and with reversed scans; return the rows and any problem."""
    try:
        conn.execute("PRAGMA reverse_unordered_selects = OFF")
        rows = conn.execute(sql).fetchall()
        conn.execute("PRAGMA reverse_unordered_selects = ON")
        reversed_rows = conn.execute(sql).fetchall()
    except sqlite3.Error as e:
        raise BuildError(f"gold query fails: {e}\n  {sql}") from e
    finally:
        conn.execute("PRAGMA reverse_unordered_selects = OFF")
    problem = _trivial(rows)
    if problem is None and not result_eq(rows, reversed_rows, order_matters=order_matters(sql)):
        problem = "result depends on scan order (ties or missing ORDER BY)"
    return rows, problem


def instantiate(template: Template, conn: sqlite3.Connection, rng: random.Random) -> list[Draft]:
    """Produce ``template.count`` distinct checked instances, or raise :class:`BuildError`."""
    drafts: list[Draft] = []
    seen: set[str] = set()
    problems: list[str] = []
    candidates: dict[str, list[Any]] = {}
    for _ in range(_MAX_TRIES if template.params else 1):
        if len(drafts) >= template.count:
            break
        values: dict[str, Any] = {}
        for name, query in template.params:
            filled = query.format(**{k: sql_literal(v) for k, v in values.items()})
            if filled not in candidates:
                options = [r[0] for r in conn.execute(filled).fetchall() if r[0] is not None]
                candidates[filled] = sorted(set(options), key=lambda v: (str(type(v)), v))
            if not candidates[filled]:
                problems.append(f"no candidate values for {name!r}: {filled}")
                break
            values[name] = rng.choice(candidates[filled])
        if len(values) < len(template.params):
            continue
        sql = template.sql.format(**{k: sql_literal(v) for k, v in values.items()})
        if sql in seen:
            continue
        seen.add(sql)
        rows, problem = check_gold(conn, sql)
        if problem is not None:
            problems.append(f"{problem}: {sql}")
            continue
        question = template.question.format(**{k: _display(v) for k, v in values.items()})
        single = len(rows) == 1 and len(rows[0]) == 1
        drafts.append(Draft(question, sql, template.difficulty, single, template.engines))
    if len(drafts) < template.count:
        detail = "\n  ".join(problems[-3:]) or "too few distinct values"
        raise BuildError(
            f"template gave {len(drafts)} of {template.count} instances: "
            f"{template.question!r}\n  {detail}"
        )
    return drafts
