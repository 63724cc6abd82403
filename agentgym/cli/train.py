"""``agentgym train``: run the trainer a config's ``algorithm`` names."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from .app import app, console, err_console, fail, run_guarded


@app.command("train")
def train_cmd(
    config: Annotated[str, typer.Argument(help="YAML config (see configs/ and docs/training.md).")],
    overrides: Annotated[list[str] | None, typer.Argument(
        help="key=value overrides, e.g. steps=5 lr=3e-6 lora=true.")] = None,
    resume: Annotated[bool, typer.Option(help="Continue from the newest checkpoint.")] = False,
) -> None:
    """Train a policy: `train CONFIG [key=value ...]` (under torchrun for several processes).

    The config's ``algorithm`` names a trainer registered through ``agentgym_register_trainers``;
    its ``run`` entry point (``run="pkg.mod:function"``) gets the config path and overrides.
    """
    import logging
    import os
    from pathlib import Path

    import yaml
    from rich.logging import RichHandler

    from ..plugins import get_registry
    from ..registrars import load_entry_point

    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s",
                        handlers=[RichHandler(console=err_console, show_path=False)])
    args = [*(overrides or []), *(["resume=true"] if resume else [])]
    try:
        data = yaml.safe_load(Path(config).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        fail(f"cannot read config {config}: {e}")
    chosen = [a.split("=", 1)[1] for a in args if a.startswith("algorithm=")]
    algorithm = chosen[-1] if chosen else str(data.get("algorithm", "grpo"))
    entry = run_guarded(get_registry("trainers").get, algorithm)
    if "run" not in entry.extra:
        fail(f"trainer {algorithm!r} ({entry.plugin}) registers no run entry point")
    result = run_guarded(load_entry_point(entry.extra["run"]), config, args)
    if os.environ.get("RANK", "0") != "0":  # under torchrun only rank 0 reports
        return
    table = Table(title=f"{algorithm}: held-out evaluation")
    for col in ("metric", "before", "after"):
        table.add_column(col)
    baseline, final = getattr(result, "baseline", {}), getattr(result, "final", {})
    for key in sorted(set(baseline) | set(final)):
        if key.startswith(("success", "reward")):
            before, after = baseline.get(key), final.get(key)
            table.add_row(key, "-" if before is None else f"{before:.3f}",
                          "-" if after is None else f"{after:.3f}")
    console.print(table)
    console.print(f"run folder: {getattr(result, 'output_dir', '-')}  "
                  f"report: {getattr(result, 'report_png', None) or '-'}")
