"""Errors raised when the SQL env runs a query.

Both executors (SQLite and PostgreSQL) raise the same classes, so an env or a reward function can
tell the model what went wrong without knowing which engine ran the query::

    AgentGymError
    └── SQLError
        ├── SQLForbiddenError
        │   └── SQLMultipleStatementsError
        ├── SQLExecutionError
        │   └── SQLSyntaxError
        ├── SQLResourceLimitError
        │   ├── SQLTimeoutError
        │   │   └── SQLWorkLimitError
        │   └── SQLResultTooLargeError
        ├── SQLDatabaseNotFound
        └── SQLConnectionError       also an InfrastructureError: not the model's fault

Each message is written for the model to read: short, one line, and naming what to change.
:class:`SQLConnectionError` is the exception: it means the database itself failed (a dropped
connection, a server gone), so the env aborts the episode instead of scoring it.
"""

from __future__ import annotations

from agentgym.errors import AgentGymError, InfrastructureError

__all__ = [
    "SQLConnectionError",
    "SQLDatabaseNotFound",
    "SQLError",
    "SQLExecutionError",
    "SQLForbiddenError",
    "SQLMultipleStatementsError",
    "SQLResourceLimitError",
    "SQLResultTooLargeError",
    "SQLSyntaxError",
    "SQLTimeoutError",
    "SQLWorkLimitError",
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


class SQLResourceLimitError(SQLError):
    """The statement hit a resource limit (time, work, temporary disk, result size)."""


class SQLTimeoutError(SQLResourceLimitError):
    """The statement ran past its time limit and was interrupted."""


class SQLWorkLimitError(SQLTimeoutError):
    """The statement did more work (SQLite VM steps) than its budget allows.

    Unlike a wall-clock limit, the verdict does not depend on how loaded the machine is.
    """


class SQLResultTooLargeError(SQLResourceLimitError):
    """Even the first row of the result is over the byte cap."""


class SQLDatabaseNotFound(SQLError):
    """No database with that id or path exists."""


class SQLConnectionError(SQLError, InfrastructureError):
    """The database connection failed (dropped, server gone); retrying the query is safe."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        InfrastructureError.__init__(self, message, retryable=retryable)
