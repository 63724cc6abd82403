"""``agentgym train``: run the trainer a config's ``algorithm`` names.

The YAML file and the ``key=value`` overrides are read once, by
:func:`agentgym.settings.read_settings` (the trainers' own runner uses the same function), and
the trainer registry is asked once; the trainer's ``run`` entry point gets the merged mapping, no
overrides left to apply, and the chosen registry entry.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from .app import app, console, err_console, fail, interrupted, run_guarded


def space_rows(folder: Path, share: float = 0.02) -> list[tuple[str, int]]:
    """Where a run folder's disk space goes: files over ``share`` of the total, the rest summed."""
    sizes = [(p, p.stat().st_size) for p in folder.rglob("*") if p.is_file()]
    total = sum(size for _, size in sizes)
    big = sorted(((str(p.relative_to(folder)), s) for p, s in sizes if s >= share * total),
                 key=lambda row: -row[1])
    rest = total - sum(size for _, size in big)
    return [*big, ("everything else", rest), ("total", total)]


def _mb(size: int) -> str:
    return f"{size / 2**20:,.1f} MB"


def prune_hint(out: Path) -> str:
    """How to free the disk space runs take (a run folder keeps its checkpoints and logs)."""
    runs = out.parent
    return (f"runs take disk space: `du -sh {runs}/*` lists them; `rm -rf {out}` deletes this "
            "one (its final/ model too); keep_checkpoints=1 keeps only the newest checkpoint "
            "of a run (final/ and metrics stay)")


def _report(result: Any, algorithm: str) -> None:
    baseline, final = getattr(result, "baseline", {}) or {}, getattr(result, "final", {}) or {}
    keys = [k for k in sorted(set(baseline) | set(final))
            if k.startswith(("success", "reward", "winrate", "elo"))]
    if keys:
        table = Table(title=f"{algorithm}: held-out evaluation")
        for col in ("metric", "before", "after"):
            table.add_column(col)
        for key in keys:
            before, after = baseline.get(key), final.get(key)
            table.add_row(key, "-" if before is None else f"{before:.3f}",
                          "-" if after is None else f"{after:.3f}")
        console.print(table)
    else:
        console.print(f"{algorithm}: no held-out evaluation in this run (eval_every: 0 and "
                      "eval_at_start: false)")
    out = getattr(result, "output_dir", None)
    if out is not None and Path(out).is_dir():
        space = Table(title=f"disk space of {out}")
        space.add_column("file")
        space.add_column("size", justify="right")
        for name, size in space_rows(Path(out)):
            space.add_row(name, _mb(size))
        console.print(space)
        console.print(prune_hint(Path(out)), highlight=False, markup=False, soft_wrap=True)
    console.print(f"run folder: {out or '-'}  report: {getattr(result, 'report_png', None) or '-'}")


@app.command("train")
def train_cmd(
    config: Annotated[str, typer.Argument(
        metavar="CONFIG", help="YAML config (see configs/ and docs/training.md).",
        show_default=False)],
    overrides: Annotated[list[str] | None, typer.Argument(
        metavar="KEY=VALUE", help="key=value overrides, e.g. steps=5 lr=3e-6 lora=true.",
        show_default=False)] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue from the newest checkpoint.")] = False,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Replace an earlier run in the output folder.")] = False,
) -> None:
    """Train a policy: `train CONFIG \\[key=value ...]` (under torchrun for several processes).

    The config's ``algorithm`` names a trainer registered through ``agentgym_register_trainers``;
    its ``run`` entry point gets the parsed config, the overrides and the registry entry. A
    folder that already holds a run is refused unless --resume or --overwrite; Ctrl-C stops
    the run, keeps its complete checkpoints and prints how to resume.
    """
    import logging

    from rich.logging import RichHandler

    from ..plugins import get_registry
    from ..settings import read_settings
    from ..specs import load_entry_point

    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s",
                        handlers=[RichHandler(console=err_console, show_path=False)])
    if resume and overwrite:
        fail("--resume and --overwrite exclude each other")
    args = [*(overrides or []), *(["resume=true"] if resume else []),
            *(["overwrite=true"] if overwrite else [])]
    data = run_guarded(read_settings, config, args)
    algorithm = str(data.get("algorithm", "grpo"))
    entry = run_guarded(get_registry("trainers").get, algorithm)
    if "run" not in entry.extra:
        fail(f"trainer {algorithm!r} ({entry.plugin}) registers no run entry point")
    target = entry.extra["run"]
    run = target if callable(target) else run_guarded(load_entry_point, target)
    try:
        result = run_guarded(run, data, [], trainer=entry)  # the overrides are in ``data``
    except KeyboardInterrupt:
        again = shlex.join(["agentgym", "train", config, *(overrides or []), "--resume"])
        interrupted(f"interrupted; continue with: {again}")
    if os.environ.get("RANK", "0") != "0":  # under torchrun only rank 0 reports
        return
    _report(result, algorithm)
