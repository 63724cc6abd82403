"""``agentgym list``, ``info`` and ``tools``: what is registered and what each env offers."""

from __future__ import annotations

import difflib
import json
import sys
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from .app import app, console, fail, run_guarded


def _task_counts(spec: Any) -> dict[str, int] | None:
    try:
        tasks = spec.load_tasks()
    except Exception as e:  # a listing must survive a broken family
        return {"error": str(e)[:60]}  # type: ignore[dict-item]
    return None if tasks is None else tasks.splits


GROUP_AT = 20
"""A namespace with this many envs or more shows as one ``ns/* (N envs)`` entry by default."""


def _splits(counts: dict[str, int] | None) -> str:
    return "-" if counts is None else ", ".join(f"{k} {v}" for k, v in counts.items())


def _id_summary(specs: list[Any]) -> list[str]:
    """Whole ids, except that a crowded namespace (MiniWoB++) becomes one counted entry."""
    by_ns: dict[str, list[str]] = {}
    for s in specs:
        by_ns.setdefault(s.id.split("/", 1)[0], []).append(s.id)
    out: list[str] = []
    for ns, ids in by_ns.items():
        out += [f"{ns}/* ({len(ids)} envs)"] if len(ids) >= GROUP_AT else ids
    return out


def _record(spec: Any) -> dict[str, Any]:
    return {"id": spec.id, "family": spec.family, "aliases": list(spec.aliases),
            "plugin": spec.plugin, "max_turns": spec.max_turns, "splits": _task_counts(spec),
            "description": spec.description}


def _families_table(specs: list[Any]) -> Table:
    table = Table(title="agentgym environments by family", box=box.SIMPLE_HEAD,
                  caption="agentgym list --all: every env; --family NAME: one family; --json",
                  title_justify="left", caption_justify="left")
    table.add_column("family", no_wrap=True)
    table.add_column("envs", justify="right", no_wrap=True)
    table.add_column("ids", overflow="fold", min_width=max(len(s.id) for s in specs))
    families: dict[str, list[Any]] = {}
    for s in specs:
        families.setdefault(s.family, []).append(s)
    for name in sorted(families):
        table.add_row(name or "-", str(len(families[name])),
                      ", ".join(_id_summary(families[name])))
    return table


def _envs_table(specs: list[Any], title: str, width: int) -> Table:
    rows = [(s, _splits(_task_counts(s)), "\n".join(s.aliases))
            for s in sorted(specs, key=lambda s: (s.family, s.id))]
    id_w = max(len(s.id) for s in specs)
    splits_w = max(len(r[1]) for r in rows)
    aliases_w = max(7, *(len(a) for s in specs for a in s.aliases))
    room = width - (id_w + splits_w + aliases_w + 10)  # 2 spaces around every column
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left",
                  caption=None if room >= 20 else "descriptions: a wider terminal, --json or "
                  "agentgym info ID", caption_justify="left")
    table.add_column("id", no_wrap=True, min_width=id_w)
    table.add_column("splits", no_wrap=True, min_width=splits_w)
    table.add_column("aliases", no_wrap=True, min_width=aliases_w)
    if room >= 20:
        table.add_column("description", overflow="ellipsis", no_wrap=True, max_width=room)
    family = None
    for s, splits, aliases in rows:
        if s.family != family:
            family = s.family
            table.add_row(f"[bold]{family or '-'}[/]")
        table.add_row(s.id, splits, aliases, *([s.description] if room >= 20 else []))
    return table


@app.command("list")
def list_cmd(
    family: Annotated[str | None, typer.Option(help="Every env of this family.")] = None,
    all_envs: Annotated[bool, typer.Option("--all", help="Every env, one row each.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Every env as JSON records.")] = False,
) -> None:
    """Registered environments: one row per family by default (ids never cut).

    --all or --family expands to one row per env with its splits and task counts; --json
    prints every env's record (id, family, aliases, plugin, max_turns, splits, description).
    """
    from ..registry import all_specs

    specs = all_specs()
    if family is not None:
        names = sorted({s.family for s in specs})
        if family not in names:
            close = difflib.get_close_matches(family, names, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            fail(f"no family {family!r} (families: {', '.join(names)}){hint}")
        specs = [s for s in specs if s.family == family]
    if as_json:
        sys.stdout.write(json.dumps([_record(s) for s in specs], indent=2) + "\n")
    elif all_envs or family is not None:
        console.print(_envs_table(specs, f"agentgym environments ({len(specs)})", console.width))
    else:
        console.print(_families_table(specs))
        from .importers import importers_table

        console.print(importers_table())  # reasoning-gym:, textarena:, openenv: (docs/interop.md)


@app.command()
def info(env_id: str) -> None:
    """Spec, tools and splits of one environment."""
    from ..registry import make, spec

    s = run_guarded(spec, env_id)
    console.print(f"[bold]{s.id}[/]  family={s.family}  plugin={s.plugin or '-'}")
    from ..settings import DEFAULT_MAX_TURNS

    turns = (s.max_turns if s.max_turns is not None
             else f"{DEFAULT_MAX_TURNS} (the default; a multi-agent env has none)")
    console.print(f"entry point: {s.entry_point}  max_turns: {turns}")
    console.print(f"aliases: {', '.join(s.aliases) or '-'}")
    console.print(f"splits (tasks): {_splits(_task_counts(s))}", highlight=False)
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
