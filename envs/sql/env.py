"""``sql/spider-lite-v0``: answer a question about a bundled database by writing SQL.

Each task names a database and asks a question. The first observation shows the database's
``CREATE TABLE`` statements and the question. Tools: ``execute_sql`` runs a read-only query and
shows the first rows; ``submit`` gives the final query, which is scored and ends the episode.
Models without tool calling may use the text protocol instead: ``<sql>...</sql>`` runs a query,
``<answer>...</answer>`` (or a fenced ```sql block) submits one.

Reward: 1 when the submitted query's result equals the gold query's result under Spider's
test-suite rules (any column order; row order only when the gold query sorts), else 0. Queries
run on SQLite by default, or on PostgreSQL with ``engine="postgres"`` and a connection string.

On SQLite a query is budgeted by the work it does (``max_steps`` virtual-machine instructions),
so the same query gets the same verdict on an idle and on a loaded machine; the wall-clock
``timeout_s`` only backs that up. On PostgreSQL, which counts no work, ``timeout_s`` is the
budget. Failures that are not the model's abort the episode (they raise
:class:`~agentgym.errors.InfrastructureError`): a dead database connection (after one retry on a
fresh connection) and a gold query that cannot be computed.
"""

from __future__ import annotations

import os
import re
from functools import cache
from typing import Any

from agentgym import Task, TaskSet, TaskToolEnv, ToolCall, parse_tool_calls
from agentgym.errors import InfrastructureError, ToolError

from .base import ExecutionLimits, SQLExecutor
from .errors import SQLConnectionError, SQLError
from .evaluator import order_matters, results_match
from .executor import SqliteExecutor
from .result import QueryResult, render_result
from .tasks import database_path, load_task_set

__all__ = ["INSTRUCTIONS", "SQLEnv", "load_tasks"]

INSTRUCTIONS = """You are an expert SQL analyst. Answer the user's question about the database \
by writing one SQL query. The database is read-only; only SELECT queries run.
Tools:
- execute_sql(query): run a query and see the first rows of its result.
- submit(query): submit your final query; its result is compared with the correct one and the \
episode ends.
Call one tool per turn, for example
<tool_call>{"name": "submit", "arguments": {"query": "SELECT COUNT(*) FROM orders"}}</tool_call>
Without tool calls, write <sql>SELECT ...</sql> to run a query and <answer>SELECT ...</answer> \
to submit. Return exactly the columns the question asks for."""

_TAGS = re.compile(r"<(sql|answer|solution)>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```sql\s*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
ENV_POSTGRES = "AGENTGYM_SQL_POSTGRES"
"""Environment variable read for the PostgreSQL connection string when none is given."""


def load_tasks() -> TaskSet:
    """The bundled SQL tasks (``train``: 6 databases, ``test``: 2 other databases)."""
    return load_task_set()


DEFAULT_MAX_STEPS = 100_000_000
"""SQLite work budget per query: about 4x the heaviest bundled gold query (27 M steps)."""
SQLITE_BACKSTOP_S = 60.0
"""Wall-clock backstop of a SQLite query when a work budget is set."""
POSTGRES_TIMEOUT_S = 5.0
"""Default wall-clock budget of a PostgreSQL query."""
GOLD_TIMEOUT_S = 120.0
"""Wall-clock limit of a gold query (trusted, no work budget); failing it aborts the episode."""


@cache
def _sqlite_executor(
    db_id: str, timeout_s: float, max_steps: int | None = None
) -> SqliteExecutor:
    """One shared executor per database and limits (connections are pooled)."""
    limits = ExecutionLimits(timeout_s=timeout_s, max_steps=max_steps)
    return SqliteExecutor(database_path(db_id), limits)


@cache
def _schema_text(db_id: str) -> str:
    """The ``CREATE TABLE`` statements of a bundled database (shown on either engine)."""
    return _sqlite_executor(db_id, 5.0).schema_sql()


@cache
def _postgres_executor(conninfo: str, db_id: str, timeout_s: float) -> SQLExecutor:
    """One shared executor per server, schema and timeout."""
    from .postgres import PostgresExecutor

    return PostgresExecutor(conninfo, db_id, ExecutionLimits(timeout_s=timeout_s))


class SQLEnv(TaskToolEnv):
    """Text-to-SQL over bundled databases, scored by execution match."""

    fork_fields = ()
    """Forked by copying its state: queries only read, so the task's fields are all of it."""

    instructions = INSTRUCTIONS

    def __init__(
        self,
        split: str = "train",
        engine: str = "sqlite",
        postgres_conninfo: str | None = None,
        difficulty: str | None = None,
        single_value_only: bool = False,
        timeout_s: float | None = None,
        max_steps: int | None = DEFAULT_MAX_STEPS,
        max_rows_shown: int = 20,
        show_schema: bool = True,
        backend: str | None = None,
        dsn: str | None = None,
    ) -> None:
        """Pick the split, the engine and optional filters.

        Args:
            split: ``train`` or ``test`` (the test databases never appear in train).
            engine: ``sqlite`` (bundled files) or ``postgres`` (databases loaded with
                :mod:`agentgym.envs.sql.pgload`, one schema per database).
            postgres_conninfo: libpq string of the read-only role; defaults to
                ``$AGENTGYM_SQL_POSTGRES``.
            difficulty: keep only ``easy``, ``medium`` or ``hard`` tasks.
            single_value_only: keep only tasks whose answer is one value (for small models).
            timeout_s: wall-clock limit per query (default: 60 s as a backstop of
                ``max_steps`` on SQLite, 5 s on PostgreSQL).
            max_steps: work budget per query in SQLite virtual-machine steps (``None``: only
                the wall clock counts); ignored on PostgreSQL.
            max_rows_shown: rows of a result shown to the model.
            show_schema: include the ``CREATE TABLE`` statements in the first observation.
            backend: alias of ``engine`` (``make("sql", backend="postgres", dsn=...)``).
            dsn: alias of ``postgres_conninfo``.
        """
        engine = backend or engine
        postgres_conninfo = dsn or postgres_conninfo
        if engine not in ("sqlite", "postgres"):
            raise ValueError(f"engine must be 'sqlite' or 'postgres', not {engine!r}")
        if difficulty not in (None, "easy", "medium", "hard"):
            raise ValueError(f"difficulty must be easy, medium or hard, not {difficulty!r}")
        self.engine = engine
        self.conninfo = postgres_conninfo or os.environ.get(ENV_POSTGRES, "")
        if engine == "postgres" and not self.conninfo:
            raise ValueError(f"engine='postgres' needs postgres_conninfo or ${ENV_POSTGRES}")
        if timeout_s is None:
            backstop = SQLITE_BACKSTOP_S if max_steps is not None else POSTGRES_TIMEOUT_S
            timeout_s = POSTGRES_TIMEOUT_S if engine == "postgres" else backstop
        self.timeout_s = timeout_s
        self.max_steps = max_steps if engine == "sqlite" else None
        self.max_rows_shown = max_rows_shown
        self.show_schema = show_schema
        tasks = [
            t
            for t in load_tasks()
            if (difficulty is None or t.data["difficulty"] == difficulty)
            and (not single_value_only or t.data.get("single_value"))
            and engine in t.data.get("engines", ("sqlite", "postgres"))
        ]
        super().__init__(TaskSet(tasks, name="sql"), split)

    # -- plumbing ----------------------------------------------------------------------------

    def executor(self, db_id: str) -> SQLExecutor:
        """The executor for ``db_id`` on this env's engine."""
        if self.engine == "postgres":
            return _postgres_executor(self.conninfo, db_id, self.timeout_s)
        return _sqlite_executor(db_id, self.timeout_s, self.max_steps)

    def make_tools(self) -> list[Any]:
        """execute_sql and submit."""
        return [self.execute_sql, self.submit]

    def start(self, task: Task) -> str:
        """Show the database schema and the question."""
        db_id = task.data["db_id"]
        parts = [f"Database: {db_id} ({self.engine})"]
        if self.show_schema:
            parts.append(_schema_text(db_id))
        parts.append(f"Question: {task.prompt}")
        return "\n\n".join(parts)

    def parse_action(self, action: Any) -> list[ToolCall]:
        """Tool calls; else ``<sql>`` runs, ``<answer>``/``<solution>``/```sql submits."""
        calls = parse_tool_calls(action)
        if calls or not isinstance(action, str):
            return calls
        for tag, body in _TAGS.findall(action):
            name = "execute_sql" if tag.lower() == "sql" else "submit"
            calls.append(ToolCall(name, {"query": body.strip()}))
        if not calls:
            calls = [ToolCall("submit", {"query": b.strip()}) for b in _FENCE.findall(action)[-1:]]
        return calls

    def gold_result(self, task: Task) -> QueryResult:
        """The gold query's result on this env's engine.

        Raises :class:`InfrastructureError` when it cannot be computed: the reference answer
        is missing, which is never the model's fault.
        """
        try:
            return _gold(self, task.data["db_id"], task.data["gold_sql"])
        except SQLError as e:
            raise InfrastructureError(
                f"the reference query of {task.task_id} failed: {type(e).__name__}: {e}",
                retryable=isinstance(e, SQLConnectionError),
            ) from e

    # -- tools -------------------------------------------------------------------------------

    def execute_sql(self, query: str) -> str:
        """Run a read-only SQL query and show the first rows of its result.

        Args:
            query: One SQL SELECT statement.
        """
        if self.task is None:
            raise ToolError("no task: call reset() first")
        try:
            result = self.executor(self.task.data["db_id"]).execute(query)
        except SQLConnectionError:
            raise  # the database failed, not the model: the episode is aborted
        except SQLError as e:
            raise ToolError(str(e)) from e
        return render_result(result, max_rows=self.max_rows_shown)

    def submit(self, query: str) -> str:
        """Submit your final SQL query; it is scored and the episode ends.

        Args:
            query: The SQL SELECT statement that answers the question.
        """
        task = self.task
        if task is None:
            raise ToolError("no task: call reset() first")
        gold_sql = task.data["gold_sql"]
        gold = self.gold_result(task)  # first: a missing reference aborts, whatever the query
        try:
            predicted = self.executor(task.data["db_id"]).execute(query)
        except SQLConnectionError:
            raise  # the database failed, not the model: the episode is aborted
        except SQLError as e:
            self.finish(0.0, success=False, sql_error=type(e).__name__)
            return f"Submitted. Your query failed: {e}"
        correct = results_match(gold, predicted, order_matters=order_matters(gold_sql))
        self.finish(float(correct), success=correct, rows=len(predicted.rows))
        verdict = "correct" if correct else "incorrect"
        return f"Submitted: {verdict}.\n{render_result(predicted, max_rows=5)}"

    # -- expert ------------------------------------------------------------------------------

    def expert_actions(self, task: Task) -> list[ToolCall]:
        """Reference play: look at the gold query's result, then submit it."""
        gold = task.data["gold_sql"]
        return [ToolCall("execute_sql", {"query": gold}), ToolCall("submit", {"query": gold})]


def _gold(env: SQLEnv, db_id: str, sql: str) -> QueryResult:
    """Run a gold query, cached per engine, server, database and query."""
    return _gold_cached(env.engine, env.conninfo, env.timeout_s, db_id, sql)


@cache
def _gold_cached(engine: str, conninfo: str, timeout_s: float, db_id: str, sql: str) -> QueryResult:
    """The cached result behind :func:`_gold` (no work budget: the gold query is trusted)."""
    if engine == "postgres":
        executor = _postgres_executor(conninfo, db_id, timeout_s)
    else:
        executor = _sqlite_executor(db_id, timeout_s)
    return executor.execute(sql, limits=ExecutionLimits(timeout_s=max(timeout_s, GOLD_TIMEOUT_S)))
