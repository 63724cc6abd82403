"""``agentgym importers [PREFIX]``: the id prefixes that import other projects' envs.

Each importer is a resolver of the ``resolvers`` registry registered with ``importer=True``
(the built-in ones: ``reasoning-gym:``, ``textarena:``, ``openenv:``; docs/interop.md).
Without an argument: one row per importer (its id form, how many envs its package offers,
what installs it). With a prefix: every env id it offers, one per line (``--json`` for a list).
``agentgym list`` ends with the short table (:func:`importers_table`, no counts: counting
imports each package).
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from .app import app, console, fail


def _importers() -> list[Any]:
    from ..plugins import get_registry

    return [e for e in get_registry("resolvers") if e.extra.get("importer")]


def _count(entry: Any) -> str:
    try:
        resolver = entry.load()
        names = resolver.names()
    except Exception as e:  # a package that is not installed: say what installs it
        return f"not available ({type(e).__name__})"
    return str(len(names)) if names else getattr(resolver, "unlisted", "none listed")


def importers_table(counts: bool = False) -> Table:
    """The importers as a table: prefix, id form, description, install line (and counts)."""
    table = Table(title="importers (other projects' envs: agentgym importers PREFIX)",
                  box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("prefix", no_wrap=True)
    if counts:
        table.add_column("envs", no_wrap=True)
    table.add_column("what", overflow="fold")
    table.add_column("install", overflow="fold")
    for entry in _importers():
        table.add_row(f"{entry.name}:", *([_count(entry)] if counts else []),
                      escape(entry.description.replace("``", "")),
                      escape(str(entry.extra.get("install", ""))))
    return table


@app.command("importers")
def importers_cmd(
    prefix: Annotated[str | None, typer.Argument(help="An importer's prefix: list its envs.")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="The env ids as a JSON list.")] = False,
) -> None:
    """Importers of other projects' envs, or every env id one of them offers."""
    entries = {e.name: e for e in _importers()}
    if prefix is None:
        console.print(importers_table(counts=True))
        return
    prefix = prefix.rstrip(":")
    if prefix not in entries:
        fail(f"no importer {prefix!r} (importers: {', '.join(entries) or 'none'})")
    try:
        names = entries[prefix].load().names()
    except Exception as e:  # not installed: one clear line
        fail(f"{prefix}: {e} (install: {entries[prefix].extra.get('install', '?')})")
    ids = [f"{prefix}:{n}" for n in names]
    if as_json:
        sys.stdout.write(json.dumps(ids) + "\n")
    elif not ids:
        console.print(escape(entries[prefix].description.replace("``", "")), highlight=False)
    else:
        sys.stdout.write("\n".join(ids) + "\n")
