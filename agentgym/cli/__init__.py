"""The ``agentgym`` command line, one module per command (list, info, tools, play, eval, train,
audit, importers, export).

To add a command, write ``agentgym/cli/<name>.py`` that decorates a function with
``@app.command()`` (``from .app import app``) and import it below. Errors print one clear line
on stderr and exit with status 1.
"""

from __future__ import annotations

from . import (  # noqa: F401  (importing registers the commands)
    audit,
    catalog,
    evaluate,
    export,
    gateway,
    importers,
    play,
    record,
    retriever,
    serve,
    train,
)
from .app import app, console, err_console, fail, run_guarded


def main() -> None:
    """Entry point of the ``agentgym`` script."""
    app()


__all__ = ["app", "console", "err_console", "fail", "main", "run_guarded"]
