"""``sql/team-v0``: a planner and an executor answer a SQL question together (cooperative).

Two agents with different views and tools, on the SQL family's tasks and scorer:

- the **planner** sees the database schema and the question, has no tools, and writes one plan
  for the executor (which tables, joins, filters; it may sketch the query);
- the **executor** sees the question and the plan but not the schema, and has the SQL env's
  ``execute_sql`` and ``submit`` tools; it may explore the database with queries.

The plan must state the query the planner suggests (``SELECT ...`` or ``WITH ...``): a plan
without one is an illegal action. The scripted executor (the partner of a planner seat) runs the
plan's query and submits it, so a planner seat is rewarded for a correct query, never for merely
writing something. Both agents get the episode's reward: 1 when the executor's submitted query
matches the gold result (the SQL env's own scorer, unchanged), else 0. The executor has
``max_executor_turns`` turns (default 6); running out ends the episode with reward 0. An
infrastructure failure of the database ends it with ``info["aborted"]`` for both agents, never a
score.
"""

from __future__ import annotations

import re
from typing import Any

from agentgym import ToolCall, ToolSet
from agentgym.multiagent import IllegalAction, MultiAgentEnv

from .env import SQLEnv, _schema_text

PLANNER = (
    "You are the planner of a two-agent SQL team. You see the database schema and the question; "
    "the executor, who writes and runs the queries, sees only the question and your plan. Reply "
    "with a short plan: the tables and columns to use, the joins, filters and aggregation, and "
    "the query you suggest."
)
EXECUTOR = (
    "You are the executor of a two-agent SQL team. A planner who saw the database schema wrote "
    "you a plan. Use execute_sql(query) to run read-only queries and submit(query) to submit "
    "the final query, one tool call per turn, for example\n"
    '<tool_call>{"name": "submit", "arguments": {"query": "SELECT COUNT(*) FROM orders"}}'
    "</tool_call>\nWithout tool calls, write <sql>...</sql> to run a query and "
    "<answer>...</answer> to submit."
)
MAX_PLAN_CHARS = 4000
_QUERY = re.compile(r"\bwith\s+\w+\s+as\s*\([^;]*|\bselect\b[^;]*", re.IGNORECASE)


def plan_query(plan: str) -> str:
    """The query a plan suggests: from its first ``SELECT``/``WITH`` to a ``;`` or the end, with
    a closing code fence or tag cut off ('' when the plan holds none)."""
    found = _QUERY.search(plan)
    if found is None:
        return ""
    query = re.split(r"```|</", found.group(0), maxsplit=1)[0]
    return " ".join(query.split())


class SQLTeamEnv(MultiAgentEnv):
    """A planner and an executor on one SQL task; both share the executor's reward."""

    possible_agents = ["planner", "executor"]  # noqa: RUF012
    zero_sum = False

    def __init__(self, split: str = "train", max_executor_turns: int = 6,
                 **sql_kwargs: Any) -> None:  # fmt: skip
        super().__init__()
        self.sql = SQLEnv(split, show_schema=False, **sql_kwargs)
        self.split = split
        self.task_set = self.sql.task_set
        self.max_executor_turns = max_executor_turns
        self.plan = ""
        self.executor_turns = 0
        self._last = ""

    @property
    def task(self) -> Any:
        """The SQL task of the episode."""
        return self.sql.task

    def instructions_for(self, agent: str) -> str:
        """The planner's or the executor's role."""
        return PLANNER if agent == "planner" else EXECUTOR

    def tools_for(self, agent: str) -> ToolSet:
        """None for the planner; ``execute_sql`` and ``submit`` for the executor."""
        return ToolSet() if agent == "planner" else self.sql.tools

    def _reset(self, options: dict[str, Any]) -> dict[str, Any]:
        seed = int(self.np_random.integers(2**31))
        _, info = self.sql.reset(seed=seed, options=options)
        self.plan, self.executor_turns, self._last = "", 0, ""
        return {"task_id": info.get("task_id"), "split": self.split}

    def _question(self) -> str:
        assert self.sql.task is not None
        return f"Question: {self.sql.task.prompt}"

    def _observe(self, agent: str) -> str:
        task = self.sql.task
        assert task is not None
        if agent == "planner":
            schema = _schema_text(task.data["db_id"])
            done = "\n\nYour plan went to the executor." if self.plan else ""
            return f"Database: {task.data['db_id']}\n\n{schema}\n\n{self._question()}{done}"
        parts = [self._question(), f"Plan from the planner:\n{self.plan or '(not yet written)'}"]
        if self._last:
            parts.append(self._last)
        return "\n\n".join(parts)

    def _act(self, agent: str, action: Any) -> None:
        if agent == "planner":
            text = action if isinstance(action, str) else str(
                action.get("content") or "" if isinstance(action, dict) else "")
            if not text.strip():
                raise IllegalAction("the plan is empty; write a plan for the executor")
            if not plan_query(text):
                raise IllegalAction("the plan states no query; end it with the query you "
                                    "suggest (SELECT ...)")
            self.plan = text.strip()[:MAX_PLAN_CHARS]
            self.agent_selection = "executor"
            return
        self.executor_turns += 1
        obs, reward, terminated, truncated, info = self.sql.step(action)
        self._last = obs["text"]
        mine = self.infos.setdefault(agent, {})  # the SQL env's error (malformed call, bad SQL)
        if "error" in info:
            mine["error"] = str(info["error"])
        else:
            mine.pop("error", None)
        if info.get("aborted"):
            for a in self.agents:
                self.infos[a].update(aborted=True, abort_reason=info.get("abort_reason", ""))
            self.end({}, f"aborted: {info.get('abort_reason', 'infrastructure failure')}")
        elif terminated:
            self.end({a: reward for a in self.agents},
                     "solved" if reward > 0 else "the submitted query was wrong")
        elif self.executor_turns >= self.max_executor_turns:
            self.end({}, f"the executor used its {self.max_executor_turns} turns")

    def forfeit(self, agent: str, reason: str) -> None:
        """Cooperative: a forfeit fails the team (0 for both)."""
        self.end({}, f"{agent} gave up: {reason}")

    def scripted_action(self, agent: str) -> Any:
        """The planner states the gold query; the executor runs the plan's query, then submits it
        (so the team's reward follows the plan)."""
        task = self.sql.task
        assert task is not None
        if agent == "planner":
            return f"Run this query and submit it: {task.data['gold_sql']}"
        query = plan_query(self.plan)
        name = "execute_sql" if self.executor_turns == 0 else "submit"
        return ToolCall(name, {"query": query})

    def close(self) -> None:
        """Close the SQL env."""
        self.sql.close()


def team_seat(split: str = "train", seat: str | None = None, opponent: Any = "scripted",
              **kwargs: Any) -> Any:
    """One role of the team (drawn per episode unless ``seat`` names it) beside ``opponent``
    playing the other: ``scripted`` (the gold-query planner, the expert executor), ``random``,
    an :class:`~agentgym.opponents.Opponent` such as the live policy, or a pool."""
    from agentgym.seat import SeatEnv

    return SeatEnv(SQLTeamEnv(split, **kwargs), seat=seat, opponent=opponent)


__all__ = ["SQLTeamEnv", "plan_query", "team_seat"]
