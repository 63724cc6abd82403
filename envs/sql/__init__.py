"""Text-to-SQL family: bundled SQLite databases, guarded executors and Spider-style scoring.

``SqliteExecutor`` and ``PostgresExecutor`` run one read-only statement with time, row and byte
caps and raise the :mod:`.errors` classes; ``results_match`` compares results the way Spider's
test-suite evaluation does; ``render_result`` shows a result to a model. The env itself lives in
:mod:`.env` (``sql/spider-lite-v0``).
"""

from __future__ import annotations

from .base import ExecutionLimits, SQLExecutor
from .errors import (
    SQLDatabaseNotFound,
    SQLError,
    SQLExecutionError,
    SQLForbiddenError,
    SQLMultipleStatementsError,
    SQLResultTooLargeError,
    SQLSyntaxError,
    SQLTimeoutError,
)
from .evaluator import canonical_value, order_matters, result_eq, results_match
from .executor import SqliteExecutor
from .postgres import PostgresExecutor
from .result import QueryResult, render_result
from .tasks import DB_DIR, TASKS_FILE, database_ids, database_path

__all__ = [
    "DB_DIR",
    "TASKS_FILE",
    "ExecutionLimits",
    "PostgresExecutor",
    "QueryResult",
    "SQLDatabaseNotFound",
    "SQLError",
    "SQLExecutionError",
    "SQLExecutor",
    "SQLForbiddenError",
    "SQLMultipleStatementsError",
    "SQLResultTooLargeError",
    "SQLSyntaxError",
    "SQLTimeoutError",
    "SqliteExecutor",
    "canonical_value",
    "database_ids",
    "database_path",
    "order_matters",
    "render_result",
    "result_eq",
    "results_match",
]
