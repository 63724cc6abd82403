"""Android actions as adb commands, and a minimal adb device client.

:func:`adb_commands` turns one AndroidWorld / UI-S1 action (parsed by
:func:`agentgym.envs.gui.parse_android` into primitives) into the ``adb shell`` argv lists that
perform it: taps and swipes through ``input``, text through ``input text`` (escaped), keys through
``input keyevent``, apps through ``monkey -p PACKAGE``. Coordinates are device pixels.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from agentgym.envs.gui import ActionError, Primitive, parse_android
from agentgym.errors import InfrastructureError

KEYCODES = {"Return": "KEYCODE_ENTER", "Escape": "KEYCODE_BACK", "super": "KEYCODE_HOME",
            "BackSpace": "KEYCODE_DEL", "Tab": "KEYCODE_TAB", "Menu": "KEYCODE_MENU",
            "Up": "KEYCODE_DPAD_UP", "Down": "KEYCODE_DPAD_DOWN", "Left": "KEYCODE_DPAD_LEFT",
            "Right": "KEYCODE_DPAD_RIGHT", "space": "KEYCODE_SPACE"}
APP_PACKAGES = {"settings": "com.android.settings", "chrome": "com.android.chrome",
                "contacts": "com.google.android.contacts", "clock": "com.google.android.deskclock",
                "camera": "com.android.camera2", "files": "com.google.android.documentsui",
                "messages": "com.google.android.apps.messaging", "calendar":
                "com.google.android.calendar"}
SWIPE_MS = 300
_SHELL_SPECIAL = set("()<>|;&*\\~\"'`$!#?[]{}")


def escape_text(text: str) -> str:
    """``input text`` argument: spaces as ``%s``, shell metacharacters backslash-escaped."""
    out = []
    for ch in text:
        if ch == " ":
            out.append("%s")
        elif ch in _SHELL_SPECIAL:
            out.append("\\" + ch)
        elif ch == "\n":
            raise ActionError("use keyboard_enter for new lines")
        else:
            out.append(ch)
    return "".join(out)


def to_adb(p: Primitive, size: tuple[int, int]) -> list[list[str]]:
    """adb shell argv lists performing ``p`` on a ``size`` (width, height) screen."""
    w, h = size

    def inside(x: int | None, y: int | None) -> tuple[str, str]:
        if x is None or y is None or not (0 <= x < w and 0 <= y < h):
            raise ActionError(f"point ({x}, {y}) is off the {w}x{h} screen")
        return str(x), str(y)

    if p.kind == "click":
        return [["input", "tap", *inside(p.x, p.y)] for _ in range(p.clicks)]
    if p.kind == "long_press":
        x, y = inside(p.x, p.y)
        return [["input", "swipe", x, y, x, y, str(int(p.seconds * 1000))]]
    if p.kind == "swipe":
        return [["input", "swipe", *inside(p.x, p.y), *inside(p.x2, p.y2), str(SWIPE_MS)]]
    if p.kind == "scroll":  # content moves opposite to the finger
        cx, cy = w // 2, h // 2
        dx, dy = (w // 3) * (1 if p.dx > 0 else -1 if p.dx < 0 else 0), \
                 (h // 3) * (1 if p.dy > 0 else -1 if p.dy < 0 else 0)
        return [["input", "swipe", str(cx), str(cy), str(cx - dx), str(cy - dy), str(SWIPE_MS)]]
    if p.kind == "type":
        return [["input", "text", escape_text(p.text)]] if p.text else []
    if p.kind == "key":
        if len(p.keys) != 1 or p.keys[0] not in KEYCODES:
            raise ActionError(f"no Android key for {'+'.join(p.keys)!r}")
        return [["input", "keyevent", KEYCODES[p.keys[0]]]]
    if p.kind == "open_app":
        package = APP_PACKAGES.get(p.text.lower())
        if package is None:
            raise ActionError(f"unknown app {p.text!r}; known: {', '.join(sorted(APP_PACKAGES))}")
        return [["monkey", "-p", package, "-c", "android.intent.category.LAUNCHER", "1"]]
    if p.kind in ("wait", "done", "fail"):
        return []
    raise ActionError(f"{p.kind} has no Android equivalent")


def adb_commands(action: Any, size: tuple[int, int]) -> list[list[str]]:
    """The adb shell commands of one AndroidWorld / UI-S1 action dict."""
    return [cmd for p in parse_android(action) for cmd in to_adb(p, size)]


class AdbDevice:
    """One device or emulator through the ``adb`` binary (``serial`` like ``emulator-5554``)."""

    def __init__(self, serial: str = "emulator-5554", adb: str | None = None,
                 timeout_s: float = 30.0) -> None:
        binary = adb or shutil.which("adb")
        if binary is None:
            raise InfrastructureError("adb is not installed (Android platform-tools)")
        self.adb, self.serial, self.timeout_s = binary, serial, timeout_s

    def _run(self, *args: str) -> bytes:
        try:
            done = subprocess.run([self.adb, "-s", self.serial, *args], capture_output=True,
                                  timeout=self.timeout_s)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise InfrastructureError(f"adb {args[0]} failed: {e}") from e
        if done.returncode != 0:
            raise InfrastructureError(f"adb {args[0]} failed: {done.stderr.decode()[:300]}")
        return done.stdout

    def shell(self, argv: list[str]) -> str:
        """Run ``adb shell`` with ``argv``; return its output."""
        return self._run("shell", *argv).decode(errors="replace")

    def screenshot_png(self) -> bytes:
        """The screen as PNG (``screencap -p``)."""
        return self._run("exec-out", "screencap", "-p")

    def size(self) -> tuple[int, int]:
        """Screen size from ``wm size``."""
        text = self.shell(["wm", "size"]).strip().rsplit(" ", 1)[-1]
        w, h = text.split("x")
        return int(w), int(h)

    def online(self) -> bool:
        """Whether the device answers."""
        try:
            return self._run("get-state").strip() == b"device"
        except InfrastructureError:
            return False


__all__ = ["APP_PACKAGES", "KEYCODES", "AdbDevice", "adb_commands", "escape_text", "to_adb"]
