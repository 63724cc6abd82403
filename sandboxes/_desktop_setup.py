"""Task setup steps in OSWorld's ``config`` style, run against a desktop.

Each step is ``{"type": ..., "parameters": {...}}``:

=================  ==========================================================================
``launch``         ``command`` (argv list): start an app on the desktop; ``private``: it also
                   gets the private folder (``$AGENTGYM_STATE_DIR``) its scorer reads
``open``           ``path`` (relative to home) and optional ``app`` (argv, default xdg-open)
``execute``        ``command`` (argv): run to completion in home; a non-zero exit fails
``file``           ``path`` (relative to home) and ``content`` (text): write a file
``wait_file``      ``path`` (relative to home, or to the private folder with ``private``) and
                   ``timeout``: wait until the file exists
``sleep``          ``seconds``
``wait_window``    ``name`` (regex) and ``timeout``: wait until a visible window matches
``activate_window`` ``name`` (regex): raise and focus the first matching window
=================  ==========================================================================

Every app runs in the desktop's jail (see :mod:`._desktop_jail`); a step cannot opt out.
The steps work on any :class:`SetupTarget` (the desktop sandbox is one): this module does not
import the sandbox, so the two form no import circle.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from agentgym.sandbox import RunResult, SandboxError, check_relative


class SetupTarget(Protocol):
    """What the setup steps need of a desktop."""

    home: Path
    private_dir: Path
    apps: list[subprocess.Popen[bytes]]

    def environ(self) -> dict[str, str]:
        """Environment of the desktop's X clients."""

    def launch(self, argv: Sequence[str], *, private: bool = False) -> subprocess.Popen[bytes]:
        """Start an app in the desktop's jail."""

    def run(self, command: list[str]) -> RunResult:
        """Run a command to completion on the desktop."""

    def own(self, path: Path) -> None:
        """Hand a file the host wrote to the desktop's uid."""


class SetupError(SandboxError):
    """A task setup step failed or is malformed."""


def _argv(value: Any, step: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(a, str) for a in value):
        raise SetupError(f"{step}: 'command' must be a non-empty list of strings")
    return value


def _home_path(desktop: SetupTarget, rel: Any) -> Path:
    try:
        return desktop.home / check_relative(str(rel))
    except ValueError as e:
        raise SetupError(str(e)) from e


def find_windows(desktop: SetupTarget, name: str) -> list[str]:
    """Ids of the visible windows whose name matches the regex ``name``."""
    done = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", name],
                          capture_output=True, text=True, env=desktop.environ(), timeout=10)
    return done.stdout.split()


def wait_window(desktop: SetupTarget, name: str, timeout_s: float = 10.0) -> str:
    """Wait for a visible window whose name matches ``name``; return its id."""
    deadline = time.monotonic() + timeout_s
    while True:
        ids = find_windows(desktop, name)
        if ids:
            return ids[0]
        if time.monotonic() > deadline:
            raise SetupError(f"no window named like {name!r} appeared within {timeout_s:g} s")
        if any(p.poll() not in (None, 0) for p in desktop.apps):
            raise SetupError(f"an app exited while waiting for window {name!r}")
        time.sleep(0.05)


def run_setup_steps(desktop: SetupTarget, steps: Sequence[dict[str, Any]]) -> None:
    """Run ``steps`` in order; raise :class:`SetupError` naming the first one that fails."""
    for i, step in enumerate(steps):
        kind = step.get("type") if isinstance(step, dict) else None
        params = step.get("parameters", {}) if isinstance(step, dict) else {}
        where = f"setup step {i} ({kind})"
        if kind == "launch":
            desktop.launch(_argv(params.get("command"), where),
                           private=bool(params.get("private", False)))
        elif kind == "open":
            path = _home_path(desktop, params.get("path"))
            app = _argv(params.get("app", ["xdg-open"]), where)
            desktop.launch([*app, str(path)])
        elif kind == "execute":
            argv = _argv(params.get("command"), where)
            result = desktop.run(["sh", "-c", 'cd "$HOME" && exec "$@"', "sh", *argv])
            if not result.ok:
                raise SetupError(f"{where}: {result.summary()}: {result.stderr[:300]}")
        elif kind == "file":
            path = _home_path(desktop, params.get("path"))
            for parent in reversed(path.relative_to(desktop.home).parents[:-1]):
                (desktop.home / parent).mkdir(exist_ok=True)
                desktop.own(desktop.home / parent)
            path.write_text(str(params.get("content", "")), encoding="utf-8")
            desktop.own(path)
        elif kind == "wait_file":
            path = _home_path(desktop, params.get("path"))
            if params.get("private"):
                path = desktop.private_dir / path.relative_to(desktop.home)
            deadline = time.monotonic() + min(float(params.get("timeout", 10)), 60.0)
            while not path.exists():
                if time.monotonic() > deadline:
                    raise SetupError(f"{where}: {path.name} did not appear")
                time.sleep(0.05)
        elif kind == "sleep":
            time.sleep(min(float(params.get("seconds", 1.0)), 30.0))
        elif kind == "wait_window":
            wait_window(desktop, str(params.get("name", ".")), float(params.get("timeout", 10)))
        elif kind == "activate_window":
            wid = wait_window(desktop, str(params.get("name", ".")),
                              float(params.get("timeout", 10)))
            subprocess.run(["xdotool", "windowactivate", "--sync", wid], env=desktop.environ(),
                           capture_output=True, timeout=10)
        else:
            raise SetupError(f"{where}: unknown step type")


__all__ = ["SetupError", "SetupTarget", "find_windows", "run_setup_steps", "wait_window"]
