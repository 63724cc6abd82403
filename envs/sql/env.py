"""``sql/spider-lite-v0``: answer a question about a bundled database by writing SQL.

Each task names a database and asks a question. The first observation shows the database's
``CREATE TABLE`` statements and the question. Tools: ``execute_sql`` runs a read-only query and
shows the first rows; ``submit`` gives the final query, which is scored and ends the episode.
Models without tool calling may use the text protocol instead: ``<sql>...</sql>`` runs a query,
``<answer>...</answer>`` (or a fenced ```sql block) submits one.

Reward: 1 when the submitted query's result equals the gold query's result under Spider's
test-suite rules (any column order; row order only when the gold query sorts), else 0. Queries
run on SQLite by default, or on PostgreSQL with ``engine="postgres"`` and a connection string.
"""

from __future__ import annotations

import os
import re
from functools import cache
from typing import Any

from agentgym import Task, TaskSet, TaskToolEnv, ToolCall, parse_tool_calls
from agentgym.errors import ToolError

from .base import ExecutionLimits, SQLExecutor
from .errors import SQLError
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


@cache
def _sqlite_executor(db_id: str, timeout_s: float) -> SqliteExecutor:
    """One shared executor per database and timeout (connections are per thread)."""
    return SqliteExecutor(database_path(db_id), ExecutionLimits(timeout_s=timeout_s))


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

    instructions = INSTRUCTIONS

    def __init__(
        self,
        split: str = "train",
        engine: str = "sqlite",
        postgres_conninfo: str | None = None,
        difficulty: str | None = None,
        single_value_only: bool = False,
        timeout_s: float = 5.0,
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
            timeout_s: wall-clock limit per query.
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
        self.timeout_s = timeout_s
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
        return _sqlite_executor(db_id, self.timeout_s)

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
        """The gold query's result on this env's engine."""
        return _gold(self, task.data["db_id"], task.data["gold_sql"])

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
        try:
            predicted = self.executor(task.data["db_id"]).execute(query)
        except SQLError as e:
            self.finish(0.0, success=False, sql_error=type(e).__name__)
            return f"Submitted. Your query failed: {e}"
        correct = results_match(
            self.gold_result(task), predicted, order_matters=order_matters(gold_sql)
        )
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
    """The cached result behind :func:`_gold`."""
    if engine == "postgres":
        executor = _postgres_executor(conninfo, db_id, timeout_s)
    else:
        executor = _sqlite_executor(db_id, timeout_s)
    return executor.execute(sql, limits=ExecutionLimits(timeout_s=max(timeout_s, 30.0)))
