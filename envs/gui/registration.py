"""Registration of the GUI family's envs (called from ``envs/plugin.py``)."""

from __future__ import annotations

from agentgym.registrars import EnvRegistrar


def register_gui(register: EnvRegistrar) -> None:
    """``gui/desktop-v0`` (local backend) and ``gui/desktop-vnc-v0`` (VNC backend)."""
    register(
        "gui/desktop-v0",
        "agentgym.envs.gui.env:DesktopEnv",
        family="gui",
        aliases=("gui", "desktop"),
        max_turns=15,
        tasks="agentgym.envs.gui.env:load_tasks",
        viewer="agentgym.envs.gui.viewer:write_gui_viewer",
        description="Computer-use tasks on an Xvfb desktop (Tk apps, mousepad, xterm, gnumeric); "
        "screenshots plus window/widget text; state-checked evaluators.",
    )
    register(
        "gui/desktop-vnc-v0",
        "agentgym.envs.gui.env:DesktopEnv",
        kwargs={"backend": "vnc"},
        family="gui",
        max_turns=15,
        tasks="agentgym.envs.gui.env:load_tasks",
        viewer="agentgym.envs.gui.viewer:write_gui_viewer",
        description="As gui/desktop-v0, driven through a VNC client against the desktop's x11vnc.",
    )
