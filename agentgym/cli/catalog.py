"""``agentgym list``, ``info`` and ``tools``: what is registered and what each env offers."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.table import Table

from .app import app, console, fail, run_guarded


def _task_counts(spec: Any) -> dict[str, int] | None:
    try:
        tasks = spec.load_tasks()
    except Exception as e:  # a listing must survive a broken family
        return {"error": str(e)[:60]}  # type: ignore[dict-item]
    return None if tasks is None else tasks.splits


@app.command("list")
def list_cmd(family: Annotated[str | None, typer.Option(help="Only this family.")] = None) -> None:
    """Table of registered environments with family, splits and task counts."""
    from ..registry import all_specs

    table = Table(title="agentgym environments")
    for col in ("id", "family", "aliases", "splits", "plugin", "description"):
        table.add_column(col)
    for spec in all_specs():
        if family and spec.family != family:
            continue
        counts = _task_counts(spec)
        splits = "-" if counts is None else ", ".join(f"{k}: {v}" for k, v in counts.items())
        table.add_row(spec.id, spec.family, ", ".join(spec.aliases), splits, spec.plugin,
                      spec.description)
    console.print(table)


@app.command()
def info(env_id: str) -> None:
    """Spec, tools and splits of one environment."""
    from ..registry import make, spec

    s = run_guarded(spec, env_id)
    console.print(f"[bold]{s.id}[/]  family={s.family}  plugin={s.plugin or '-'}")
    console.print(f"entry point: {s.entry_point}  max_turns: {s.max_turns}")
    console.print(f"aliases: {', '.join(s.aliases) or '-'}")
    console.print(f"splits: {_task_counts(s)}")
    if s.description:
        console.print(s.description)
    env = run_guarded(make, env_id)
    try:
        console.print("[bold]tools:[/]")
        for t in env.unwrapped.tools:
            args = ", ".join(t.parameters.get("properties", {}))
            console.print(f"  {t.name}({args}): {t.description}")
        console.print("[bold]instructions:[/]")
        console.print(env.unwrapped.instructions, highlight=False, markup=False)
    finally:
        env.close()


@app.command()
def tools(
    env_id: str,
    format: Annotated[str, typer.Option("--format", help="openai or mcp")] = "openai",
) -> None:
    """Print the env's tool schemas as OpenAI function-calling JSON or MCP tool definitions."""
    from ..registry import make

    if format not in ("openai", "mcp"):
        fail(f"--format must be 'openai' or 'mcp', not {format!r}")
    env = run_guarded(make, env_id)
    try:
        toolset = env.unwrapped.tools
        data = toolset.to_openai() if format == "openai" else {"tools": toolset.to_mcp()}
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    finally:
        env.close()
