"""The shared Typer app, the consoles and the one-line error helpers of every command.

A command module imports :data:`app` and decorates its function with ``@app.command()``;
:mod:`agentgym.cli` imports the command modules so they register.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

from ..errors import AgentGymError
from .help_format import ADVANCED, GroupedHelpCommand, HelpContext, first_paragraph


def plain_help(text: str | None) -> str | None:
    """A docstring as ``--help`` shows it: reST double backticks dropped (``--out`` -> --out),
    a ``\\[`` escape shown as ``[``."""
    return None if text is None else text.replace("``", "").replace("\\[", "[")


class _PlainHelpGroup(TyperGroup):
    """The command group; docstrings keep their reST markup, ``--help`` shows it plain, laid
    out by :mod:`agentgym.cli.help_format`."""

    context_class = HelpContext

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = plain_help(self.help)
        for command in self.commands.values():
            if type(command) is TyperCommand:  # adds only the grouped help: no state to move
                command.__class__ = GroupedHelpCommand
            command.help = plain_help(command.help)
            command.short_help = plain_help(command.short_help) or first_paragraph(command.help)
            for param in command.params:  # typer's own click: its classes, not click's
                text = getattr(param, "help", None)
                if isinstance(text, str):
                    setattr(param, "help", plain_help(text))  # noqa: B010 (not every Parameter)


app = typer.Typer(help="agentgym: envs and tools for training and evaluating LLM agents.",
                  no_args_is_help=True, add_completion=False, cls=_PlainHelpGroup,
                  rich_markup_mode=None)
console = Console()
"""Results go to stdout."""
err_console = Console(stderr=True)
"""Progress, logs and errors go to stderr."""


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        console.print(f"agentgym {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """agentgym: envs and tools for training and evaluating LLM agents."""


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def interrupted(message: str) -> NoReturn:
    """Report Ctrl-C and exit 130 at once, after the command released its resources.

    The interpreter's teardown (a final garbage collection over a loaded model, module
    clean-up) takes seconds to tens of seconds on a busy machine and frees nothing the exiting
    process needs, so after the exit handlers (sandbox pools, browsers) and a flush of the
    streams the process ends without it.
    """
    import atexit
    import logging
    import os

    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(130)


def run_guarded(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run ``fn``; agentgym errors and bad files become one line on stderr and exit code 1."""
    try:
        return fn(*args, **kwargs)
    except (AgentGymError, OSError, ValueError) as e:
        fail(str(e))


__all__ = ["ADVANCED", "app", "console", "err_console", "fail", "interrupted", "run_guarded"]
