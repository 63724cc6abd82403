"""Errors raised when the SQL env runs a query.

Both executors (SQLite and PostgreSQL) raise the same classes, so an env or a reward function can
tell the model what went wrong without knowing which engine ran the query::

    AgentGymError
    └── SQLError
        ├── SQLForbiddenError
        │   └── SQLMultipleStatementsError
        ├── SQLExecutionError
        │   └── SQLSyntaxError
        ├── SQLTimeoutError
        ├── SQLResultTooLargeError
        └── SQLDatabaseNotFound

Each message is written for the model to read: short, one line, and naming what to change.
"""

from __future__ import annotations

from agentgym.errors import AgentGymError

__all__ = [
    "SQLDatabaseNotFound",
    "SQLError",
    "SQLExecutionError",
    "SQLForbiddenError",
    "SQLMultipleStatementsError",
    "SQLResultTooLargeError",
    "SQLSyntaxError",
    "SQLTimeoutError",
]


class SQLError(AgentGymError):
    """Base class of every error raised while running a model's SQL."""


class SQLForbiddenError(SQLError):
    """The statement would write, attach a file, load code or change a setting."""


class SQLMultipleStatementsError(SQLForbiddenError):
    """More than one statement was sent in one call."""


class SQLExecutionError(SQLError):
    """The engine rejected or failed the statement (unknown column, type error...)."""


class SQLSyntaxError(SQLExecutionError):
    """The statement does not parse (or is empty)."""


class SQLTimeoutError(SQLError):
    """The statement ran past its time limit and was interrupted."""


class SQLResultTooLargeError(SQLError):
    """Even the first row of the result is over the byte cap."""


class SQLDatabaseNotFound(SQLError):
    """No database with that id or path exists."""
