"""Registration of the built-in sandbox backends, called from the plugin hook in ``hooks.py``.

Entries are ``"module:Class"`` strings, imported only when a backend is opened; the availability
checks are cheap-ish probes (a bwrap dry run, a Docker ping) run only when asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BUILTIN = (
    ("docker", "agentgym.sandboxes.docker:DockerSandbox", "Warm pool of locked-down containers"),
    ("bubblewrap", "agentgym.sandboxes.bubblewrap:BubblewrapSandbox", "bwrap namespaces"),
    ("fake", "agentgym.sandboxes.fake:FakeSandbox", "Scripted results, runs nothing (tests)"),
    ("desktop", "agentgym.sandboxes.desktop:DesktopSandbox", "Xvfb desktop with apps (GUI envs)"),
    ("browser", "agentgym.sandboxes.browser:BrowserPool", "Pool of headless Chromium (Playwright)"),
)


def _docker_available() -> bool:
    from .docker import docker_available

    return docker_available()


def _bubblewrap_available() -> bool:
    from .bubblewrap import bubblewrap_available

    return bubblewrap_available()


def _browser_available() -> bool:
    from .browser import chromium_available

    return chromium_available()


def _desktop_available() -> bool:
    from .desktop import desktop_available

    return desktop_available()


def _always() -> bool:
    return True


AVAILABLE: dict[str, Callable[[], bool]] = {
    "docker": _docker_available,
    "bubblewrap": _bubblewrap_available,
    "fake": _always,
    "browser": _browser_available,
    "desktop": _desktop_available,
}


def register_builtin_sandboxes(register: Callable[..., Any]) -> None:
    """Register docker, bubblewrap, fake and browser.

    Each as ``register(name, "module:Class", available=...)``.
    """
    for name, entry_point, description in BUILTIN:
        register(name, entry_point, available=AVAILABLE[name], description=description)
