"""Registers ``android/emulator-v0`` through agentgym's env hook."""

from __future__ import annotations

from agentgym import hookimpl
from agentgym.registrars import EnvRegistrar


@hookimpl
def agentgym_register_envs(register: EnvRegistrar) -> None:
    """``android/emulator-v0``: AndroidWorld-style tasks on a running emulator (adb)."""
    register(
        "android/emulator-v0",
        "agentgym_android.env:AndroidEnv",
        family="gui",
        max_turns=20,
        tasks="agentgym_android.env:load_tasks",
        description="Android emulator tasks over adb and VNC (needs KVM and a running emulator).",
    )
