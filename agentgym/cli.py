"""The ``agentgym`` command line: list, info, tools, play, eval, train.

Errors print one clear line and exit with status 1.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from .errors import AgentGymError

app = typer.Typer(help="agentgym: envs and tools for training and evaluating LLM agents.",
                  no_args_is_help=True, add_completion=False)
console = Console()
err_console = Console(stderr=True)


def _fail(message: str) -> None:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(1)


def run_guarded(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run ``fn``; agentgym errors and bad files become one line on stderr and exit code 1."""
    try:
        return fn(*args, **kwargs)
    except (AgentGymError, OSError, ValueError) as e:
        _fail(str(e))


def _task_counts(spec: Any) -> dict[str, int] | None:
    try:
        tasks = spec.load_tasks()
    except Exception as e:  # a listing must survive a broken family
        return {"error": str(e)[:60]}  # type: ignore[dict-item]
    return None if tasks is None else tasks.splits


@app.command("list")
def list_cmd(family: Annotated[str | None, typer.Option(help="Only this family.")] = None) -> None:
    """Table of registered environments with family, splits and task counts."""
    from .registry import all_specs

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
    from .registry import make, spec

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
    from .registry import make

    if format not in ("openai", "mcp"):
        _fail(f"--format must be 'openai' or 'mcp', not {format!r}")
    env = run_guarded(make, env_id)
    try:
        toolset = env.unwrapped.tools
        data = toolset.to_openai() if format == "openai" else {"tools": toolset.to_mcp()}
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    finally:
        env.close()


@app.command()
def play(
    env_id: str,
    seed: Annotated[int, typer.Option(help="Seed that picks the task.")] = 0,
    split: Annotated[str, typer.Option(help="Task split.")] = "train",
) -> None:
    """Play an episode in the terminal: type actions (tool calls or text); an empty line quits."""
    from .registry import make

    env = run_guarded(make, env_id, split=split)
    try:
        console.rule(env_id)
        console.print(env.unwrapped.instructions, markup=False, highlight=False)
        obs, info = env.reset(seed=seed)
        total = 0.0
        while True:
            console.print(f"[cyan]observation[/] (task {info.get('task_id')}):")
            console.print(obs["text"], markup=False, highlight=False)
            action = typer.prompt("action", default="", show_default=False)
            if not action.strip():
                console.print("bye")
                break
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            if terminated or truncated:
                console.print(obs["text"], markup=False, highlight=False)
                state = "terminated" if terminated else "truncated"
                outcome = {k: v for k, v in info.items() if k != "tool_results"}
                console.print(f"[bold]episode {state}[/]: return {total:.3f}  {outcome}")
                break
    finally:
        env.close()


def main() -> None:
    """Entry point of the ``agentgym`` script."""
    app()


if __name__ == "__main__":
    main()
