"""The web family: a browser-backed env base (:class:`WebEnv`) and MiniWoB++ envs.

See docs/web.md. Importing this package needs neither Chromium nor Playwright: the browser is
started on the first reset.
"""

from __future__ import annotations

from .actions import ActionParseError, WebAction, parse_action, web_tools
from .env import INSTRUCTIONS, WebEnv
from .observation import AXTree, render_ax_tree

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
