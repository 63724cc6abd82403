"""Registers the built-in env families through the ``agentgym_register_envs`` hook."""

from __future__ import annotations

from agentgym import hookimpl
from agentgym.registrars import EnvRegistrar, NamedRegistrar


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
        "sql/spider-lite-easy-v0",
        "agentgym.envs.sql.env:SQLEnv",
        kwargs={"difficulty": "easy", "single_value_only": True},
        family="sql",
        aliases=("sql-easy",),
        max_turns=6,
        tasks="agentgym.envs.sql.env:load_tasks",
        description="Single-table SQL questions with one-value answers, for small models.",
    )
    register(
        "code/py-functions-v1",
        "agentgym.envs.code.env:CodeEnv",
        family="code",
        aliases=("code", "py-functions"),
        max_turns=8,
        tasks="agentgym.envs.code.env:load_tasks",
        description="Write a Python function; run code and tests in a sandbox; reward 1 only "
        "when every hidden test passes.",
    )
    register(
        "code/py-functions-fraction-v1",
        "agentgym.envs.code.env:CodeEnv",
        kwargs={"reward_mode": "fraction"},
        family="code",
        max_turns=8,
        tasks="agentgym.envs.code.env:load_tasks",
        description="As code/py-functions-v1 with the share of hidden tests passed as reward.",
    )
    register(
        "arith/add-v0",
        "agentgym.envs.arith.env:ArithEnv",
        family="game",
        aliases=("arith",),
        max_turns=1,
        tasks="agentgym.envs.arith.env:load_tasks",
        description="One-digit addition in one turn; the learning demo for SmolLM2-135M.",
    )
    register(
        "shop/price-v0",
        "agentgym.envs.shop.env:ShopEnv",
        family="tool",
        aliases=("shop",),
        max_turns=5,
        tasks="agentgym.envs.shop.env:load_tasks",
        description="Look a price up, multiply with a calculator, answer: the multi-turn demo.",
    )
    register(
        "sql/team-v0",
        "agentgym.envs.sql.team:SQLTeamEnv",
        family="sql",
        aliases=("sql-team",),
        tasks="agentgym.envs.sql.env:load_tasks",
        description="Cooperative: a planner (schema) and an executor (SQL tools) share the reward.",
    )
    register(
        "sql/team-vs-scripted-v0",
        "agentgym.envs.sql.team:team_seat",
        family="sql",
        max_turns=7,
        tasks="agentgym.envs.sql.env:load_tasks",
        description="One role of the SQL team (drawn per episode) beside the scripted partner.",
    )
    from .games.registration import register_games

    register_games(register)
    from .web.miniwob.registration import register_miniwob

    register_miniwob(register)
    from .search.registration import register_search

    register_search(register)
    from .webarena.registration import register_webarena

    register_webarena(register)
    from .gui.registration import register_gui

    register_gui(register)
    from .terminal.registration import register_terminal

    register_terminal(register)


@hookimpl
def agentgym_register_services(register: NamedRegistrar) -> None:
    """Register the search family's retrieval service (``agentgym serve-retriever``)."""
    from .search.registration import register_services

    register_services(register)


@hookimpl
def agentgym_register_resolvers(register: NamedRegistrar) -> None:
    """Register the importers' prefixes (``reasoning-gym:``, ``textarena:``, ``openenv:``)."""
    from .imported.resolvers import register_resolvers

    register_resolvers(register)
    from .terminal.registration import HarborResolver

    register(HarborResolver.prefix, HarborResolver, description=(HarborResolver.__doc__ or "")
             .strip().splitlines()[0], importer=False, install=HarborResolver.install)


@hookimpl
def agentgym_register_policies(register: NamedRegistrar) -> None:
    """Register ``oracle`` (the terminal family's reference solutions, replayed)."""
    from .terminal.registration import register_policies

    register_policies(register)
