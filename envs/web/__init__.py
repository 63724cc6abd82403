"""The web family: a browser-backed env base (:class:`WebEnv`) and MiniWoB++ envs.

See docs/web.md. Importing this package needs neither Chromium nor Playwright: the browser is
started on the first reset.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "AXTree": ".observation",
    "ActionParseError": ".actions",
    "INSTRUCTIONS": ".env",
    "WebAction": ".actions",
    "WebEnv": ".env",
    "parse_action": ".actions",
    "render_ax_tree": ".observation",
    "web_tools": ".actions",
}
"""Public name -> the submodule defining it."""

__all__ = [
    "INSTRUCTIONS",
    "AXTree",
    "ActionParseError",
    "WebAction",
    "WebEnv",
    "parse_action",
    "render_ax_tree",
    "web_tools",
]


def __getattr__(name: str) -> Any:
    """Import the names of ``__all__`` on first use (listing the envs imports none of them)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
