"""agentgym plugin for Android emulators: AndroidWorld / UI-S1 actions over adb (and VNC).

- :mod:`.adb`: primitives (from :func:`agentgym.envs.gui.parse_android`) to ``adb shell input``
  commands, and a small adb device client;
- :mod:`.env`: ``android/emulator-v0``, a task env on a running emulator (needs KVM to run one);
- :mod:`.plugin`: the registration hook.
"""

from __future__ import annotations

from .adb import APP_PACKAGES, AdbDevice, adb_commands, to_adb

__all__ = ["APP_PACKAGES", "AdbDevice", "adb_commands", "to_adb"]
