"""``agentgym export FORMAT ENV DIR``: write an agentgym env in another project's format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import app, console, run_guarded

export_app = typer.Typer(help="Write an env in another project's format (OpenEnv, Harbor, "
                         "verifiers).",
                         no_args_is_help=True)
app.add_typer(export_app, name="export")


@export_app.command("openenv")
def openenv(
    env_id: str,
    folder: Path,
    split: Annotated[str, typer.Option(help="Task split the server serves.")] = "test",
    wheel: Annotated[bool, typer.Option(
        help="Build agentgym's wheel into DIR/wheels for the offline Dockerfile.")] = False,
    overwrite: Annotated[bool, typer.Option(help="Write into a non-empty DIR.")] = False,
) -> None:
    """ENV as an OpenEnv environment folder (openenv.yaml, server/app.py, Dockerfile)."""
    from ..exporters import export_openenv

    out = run_guarded(export_openenv, env_id, folder, split=split, wheel=wheel,
                      overwrite=overwrite)
    console.print(f"wrote {out}: openenv.yaml, server/app.py, server/Dockerfile; "
                  f"serve it with: cd {out} && uvicorn server.app:app --port 8000",
                  highlight=False, soft_wrap=True)


@export_app.command("harbor")
def harbor(
    env_id: str,
    folder: Path,
    split: Annotated[str, typer.Option(help="Task split to export.")] = "test",
    overwrite: Annotated[bool, typer.Option(help="Write into a non-empty DIR.")] = False,
) -> None:
    """ENV's function-writing tasks (the code family's) as Harbor task folders."""
    from ..exporters import export_harbor

    out = run_guarded(export_harbor, env_id, folder, split=split, overwrite=overwrite)
    count = sum(1 for _ in out.glob("*/task.toml"))
    console.print(f"wrote {count} Harbor tasks to {out}; run them with: "
                  f"agentgym eval harbor:{out} --policy oracle", highlight=False, soft_wrap=True)


@export_app.command("verifiers")
def verifiers(
    env_id: str,
    folder: Path,
    split: Annotated[str, typer.Option(help="Task split to export.")] = "test",
    url: Annotated[str, typer.Option(help="The `agentgym serve ENV --http` server the "
                                          "package plays on.")] = "http://127.0.0.1:8000",
    overwrite: Annotated[bool, typer.Option(help="Write into a non-empty DIR.")] = False,
) -> None:
    """ENV as an installable verifiers (v1) environment package, played on `agentgym serve`."""
    from ..exporters.verifiers import export_verifiers

    out = run_guarded(export_verifiers, env_id, folder, split=split, url=url,
                      overwrite=overwrite)
    package = next(out.glob("*/tasks.json")).parent.name
    console.print(f"wrote {out}: pip install -e {out} (in verifiers' environment), then "
                  f"`agentgym serve {env_id} --http` and `vf-eval {package} "
                  f"--env.agent.runtime.type subprocess ...`",
                  highlight=False, soft_wrap=True)
