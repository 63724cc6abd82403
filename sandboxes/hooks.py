"""Registers the built-in sandbox backends through the ``agentgym_register_sandboxes`` hook."""

from __future__ import annotations

from agentgym import hookimpl
from agentgym.registrars import NamedRegistrar


@hookimpl
def agentgym_register_sandboxes(register: NamedRegistrar) -> None:
    """Register the Docker, bubblewrap and browser backends."""
    from .plugin import register_builtin_sandboxes

    register_builtin_sandboxes(register)
