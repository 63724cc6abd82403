"""GUI action primitives, key names, and OSWorld's ``computer_13`` JSON action space.

Every action space (``computer_13`` JSON, pyautogui code in :mod:`.pyautogui_ast`, AndroidWorld
and UI-S1 JSON in :mod:`.android`) is translated to the same :class:`Primitive` list, which a
control backend (:mod:`.backends`) executes. Coordinates in actions are in the *screenshot's*
pixel space; the env maps them back to the screen. Keys are normalised to X keysym names
(``Return``, ``ctrl``, ``a``), which xdotool takes as they are and the VNC backend turns into
keysym numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentgym.errors import ToolError

MAX_TEXT = 2000
"""Longest text one typing action may type."""
MAX_WAIT_S = 5.0
"""Longest wait one action may ask for."""


class ActionError(ToolError):
    """An action is malformed, refused or out of bounds; shown to the model as an error."""


@dataclass(frozen=True)
class Primitive:
    """One low-level input event sequence, in screenshot coordinates."""

    kind: str
    """move, click, down, up, drag, scroll, type, key, key_down, key_up, long_press, swipe,
    open_app, wait, done, fail."""
    x: int | None = None
    y: int | None = None
    x2: int | None = None
    """End point of a ``swipe``."""
    y2: int | None = None
    button: int = 1
    """1 left, 2 middle, 3 right."""
    clicks: int = 1
    text: str = ""
    """Text to type, app name to open, or the answer given with ``done``."""
    keys: tuple[str, ...] = ()
    """Keysym names pressed together (a hotkey) for ``key``; one name for key_down/key_up."""
    dx: int = 0
    """Horizontal scroll steps (positive: right)."""
    dy: int = 0
    """Vertical scroll steps (positive: down)."""
    seconds: float = 0.0


TERMINAL = ("done", "fail")

_KEY_ALIASES = {
    "enter": "Return", "return": "Return", "\n": "Return", "esc": "Escape", "escape": "Escape",
    "tab": "Tab", "\t": "Tab", "backspace": "BackSpace", "delete": "Delete", "del": "Delete",
    "space": "space", " ": "space", "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "home": "Home", "end": "End", "pageup": "Prior", "pgup": "Prior", "pagedown": "Next",
    "pgdn": "Next", "insert": "Insert", "ctrl": "ctrl", "control": "ctrl", "ctrlleft": "ctrl",
    "ctrlright": "ctrl", "alt": "alt", "altleft": "alt", "altright": "alt", "shift": "shift",
    "shiftleft": "shift", "shiftright": "shift", "win": "super", "super": "super",
    "command": "super", "cmd": "super", "meta": "super", "capslock": "Caps_Lock",
    "printscreen": "Print", "back": "Escape", "menu": "Menu",
}
_KEY_ALIASES.update({f"f{i}": f"F{i}" for i in range(1, 13)})
_PUNCT = {
    "-": "minus", "=": "equal", "[": "bracketleft", "]": "bracketright", ";": "semicolon",
    "'": "apostrophe", ",": "comma", ".": "period", "/": "slash", "\\": "backslash",
    "`": "grave", "+": "plus",
}
_BUTTONS = {"left": 1, "middle": 2, "right": 3, 1: 1, 2: 2, 3: 3}


def normalize_key(name: Any) -> str:
    """The X keysym name of a pyautogui/OSWorld/xdotool key name; raise :class:`ActionError`."""
    if not isinstance(name, str) or not name or len(name) > 20:
        raise ActionError(f"invalid key {str(name)[:30]!r}")
    if len(name) == 1 and (name.isalnum() and name.isascii()):
        return name
    if name in _PUNCT:
        return _PUNCT[name]
    lowered = name.lower()
    if lowered in _KEY_ALIASES:
        return _KEY_ALIASES[lowered]
    if name in _KEY_ALIASES.values():
        return name
    raise ActionError(f"unknown key {name!r}")


def button_number(value: Any) -> int:
    """1, 2 or 3 from ``left``/``middle``/``right`` or a number."""
    if isinstance(value, bool) or value not in _BUTTONS:
        raise ActionError(f"invalid mouse button {str(value)[:20]!r}")
    return _BUTTONS[value]


def coordinate(value: Any, what: str) -> int:
    """An integer pixel coordinate (ints and integral floats)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ActionError(f"{what} must be a number, got {str(value)[:30]!r}")
    if value != value or abs(value) > 100_000:
        raise ActionError(f"{what} out of range: {value!r}")
    return int(round(value))


def text_value(value: Any, what: str = "text") -> str:
    """A string of at most :data:`MAX_TEXT` characters."""
    if not isinstance(value, str):
        raise ActionError(f"{what} must be a string")
    if len(value) > MAX_TEXT:
        raise ActionError(f"{what} is longer than {MAX_TEXT} characters")
    return value


def wait_seconds(value: Any) -> float:
    """A wait in seconds, capped at :data:`MAX_WAIT_S`."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ActionError("seconds must be a number")
    return float(min(max(value, 0.0), MAX_WAIT_S))


def _xy(obj: dict[str, Any]) -> tuple[int, int]:
    if "x" not in obj or "y" not in obj:
        raise ActionError(f"{obj.get('action_type')} needs 'x' and 'y'")
    return coordinate(obj["x"], "x"), coordinate(obj["y"], "y")


def _maybe_xy(obj: dict[str, Any]) -> tuple[int | None, int | None]:
    if "x" in obj or "y" in obj:
        return _xy(obj)
    return None, None


def parse_computer13(obj: Any) -> list[Primitive]:
    """Translate one OSWorld ``computer_13`` action dict (``{"action_type": "CLICK", ...}``)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("action_type"), str):
        raise ActionError("a computer_13 action is an object with a string 'action_type'")
    kind = obj["action_type"].upper()
    if kind == "MOVE_TO":
        x, y = _xy(obj)
        return [Primitive("move", x, y)]
    if kind == "CLICK":
        cx, cy = _maybe_xy(obj)
        clicks = obj.get("num_clicks", 1)
        if clicks not in (1, 2, 3):
            raise ActionError("num_clicks must be 1, 2 or 3")
        return [Primitive("click", cx, cy, button=button_number(obj.get("button", "left")),
                          clicks=clicks)]
    if kind in ("RIGHT_CLICK", "DOUBLE_CLICK"):
        cx, cy = _maybe_xy(obj)
        right = kind == "RIGHT_CLICK"
        return [Primitive("click", cx, cy, button=3 if right else 1, clicks=1 if right else 2)]
    if kind in ("MOUSE_DOWN", "MOUSE_UP"):
        return [Primitive("down" if kind == "MOUSE_DOWN" else "up",
                          button=button_number(obj.get("button", "left")))]
    if kind == "DRAG_TO":
        x, y = _xy(obj)
        return [Primitive("drag", x, y)]
    if kind == "SCROLL":
        return [Primitive("scroll", dx=coordinate(obj.get("dx", 0), "dx"),
                          dy=coordinate(obj.get("dy", 0), "dy"))]
    if kind == "TYPING":
        return [Primitive("type", text=text_value(obj.get("text")))]
    if kind in ("PRESS", "KEY_DOWN", "KEY_UP"):
        name = {"PRESS": "key", "KEY_DOWN": "key_down", "KEY_UP": "key_up"}[kind]
        return [Primitive(name, keys=(normalize_key(obj.get("key")),))]
    if kind == "HOTKEY":
        keys = obj.get("keys")
        if not isinstance(keys, list) or not 1 <= len(keys) <= 5:
            raise ActionError("HOTKEY needs 'keys', a list of 1 to 5 key names")
        return [Primitive("key", keys=tuple(normalize_key(k) for k in keys))]
    if kind == "WAIT":
        return [Primitive("wait", seconds=wait_seconds(obj.get("seconds", 1.0)))]
    if kind in ("DONE", "FAIL"):
        return [Primitive(kind.lower(), text=str(obj.get("answer", ""))[:MAX_TEXT])]
    raise ActionError(f"unknown computer_13 action_type {obj['action_type'][:40]!r}")


__all__ = [
    "MAX_TEXT",
    "MAX_WAIT_S",
    "TERMINAL",
    "ActionError",
    "Primitive",
    "button_number",
    "coordinate",
    "normalize_key",
    "parse_computer13",
    "text_value",
    "wait_seconds",
]
