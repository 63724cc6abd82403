"""Registers the built-in env families through the ``agentgym_register_envs`` hook."""

from __future__ import annotations

from agentgym import hookimpl
from agentgym.registrars import EnvRegistrar


@hookimpl
def agentgym_register_envs(register: EnvRegistrar) -> None:
    """Register the SQL and code families."""
    register(
        "sql/spider-lite-v0",
        "agentgym.envs.sql.env:SQLEnv",
        family="sql",
        aliases=("sql", "spider-lite"),
        max_turns=10,
        tasks="agentgym.envs.sql.env:load_tasks",
        description="Text-to-SQL over bundled SQLite databases; Spider test-suite execution match.",
    )
    register(
        "code/py-functions-v0",
        "agentgym.envs.code.env:CodeEnv",
        family="code",
        aliases=("code", "py-functions"),
        max_turns=8,
        tasks="agentgym.envs.code.env:load_tasks",
        description="Write a Python function; run code and tests in a sandbox; hidden tests score.",
    )
