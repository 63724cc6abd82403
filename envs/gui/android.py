"""AndroidWorld and UI-S1 JSON actions, translated to :class:`~.actions.Primitive` lists.

- AndroidWorld (``env/json_action.py``): ``{"action_type": "click", "x": 10, "y": 20}``, with
  ``double_tap``, ``long_press``, ``scroll`` (``direction``), ``swipe``, ``input_text``
  (``text``, optional ``x``/``y`` to focus first), ``keyboard_enter``, ``navigate_home``,
  ``navigate_back``, ``open_app`` (``app_name``), ``status`` (``goal_status``: ``complete`` or
  ``infeasible``), ``wait`` and ``answer`` (``text``).
- UI-S1 / Qwen mobile-use style: ``{"action": "click", "coordinate": [x, y]}``, with
  ``long_press`` (``time``), ``swipe`` (``coordinate2``), ``type``, ``key`` / ``system_button``
  (``Back``, ``Home``, ``Enter``), ``open`` (``text``), ``wait``, ``terminate`` (``status``).

On a desktop, ``navigate_back`` is Escape, ``navigate_home`` the Super key, and ``open_app``
launches an app only when the env allows that name. The Android plugin turns the same
primitives into ``adb shell input`` commands.
"""

from __future__ import annotations

from typing import Any

from .actions import ActionError, Primitive, coordinate, text_value, wait_seconds

SCROLL_STEPS = 5
"""Wheel steps of one ``scroll`` action."""
LONG_PRESS_S = 1.0
"""Default duration of a long press."""

_SYSTEM_KEYS = {"back": "Escape", "home": "super", "enter": "Return", "menu": "Menu"}


def _point(value: Any, what: str) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ActionError(f"{what} must be [x, y]")
    return coordinate(value[0], f"{what}[0]"), coordinate(value[1], f"{what}[1]")


def _xy(obj: dict[str, Any]) -> tuple[int, int]:
    if "coordinate" in obj:
        return _point(obj["coordinate"], "coordinate")
    if "x" in obj and "y" in obj:
        return coordinate(obj["x"], "x"), coordinate(obj["y"], "y")
    if "index" in obj:
        raise ActionError("element 'index' targets need an accessibility tree; give x and y")
    raise ActionError("the action needs x and y (or coordinate)")


def _scroll(direction: Any) -> Primitive:
    steps = {"up": (0, -SCROLL_STEPS), "down": (0, SCROLL_STEPS),
             "left": (-SCROLL_STEPS, 0), "right": (SCROLL_STEPS, 0)}
    if direction not in steps:
        raise ActionError("direction must be up, down, left or right")
    dx, dy = steps[direction]
    return Primitive("scroll", dx=dx, dy=dy)


def parse_android(obj: Any) -> list[Primitive]:
    """Translate one AndroidWorld or UI-S1 action dict; raise :class:`ActionError`."""
    if not isinstance(obj, dict):
        raise ActionError("an Android action is a JSON object")
    kind = obj.get("action_type", obj.get("action"))
    if not isinstance(kind, str):
        raise ActionError("an Android action needs a string 'action_type' (or 'action')")
    kind = kind.lower()
    if kind in ("click", "tap"):
        return [Primitive("click", *_xy(obj))]
    if kind == "double_tap":
        return [Primitive("click", *_xy(obj), clicks=2)]
    if kind == "long_press":
        secs = wait_seconds(obj.get("time", LONG_PRESS_S))
        return [Primitive("long_press", *_xy(obj), seconds=secs)]
    if kind == "swipe":
        if "coordinate2" in obj:
            x, y = _xy(obj)
            x2, y2 = _point(obj["coordinate2"], "coordinate2")
            return [Primitive("swipe", x, y, x2, y2)]
        return [_scroll(obj.get("direction"))]
    if kind == "scroll":
        return [_scroll(obj.get("direction"))]
    if kind in ("input_text", "type"):
        text = text_value(obj.get("text"))
        focus = [Primitive("click", *_xy(obj))] if ("x" in obj or "coordinate" in obj) else []
        return [*focus, Primitive("type", text=text)]
    if kind == "keyboard_enter":
        return [Primitive("key", keys=("Return",))]
    if kind in ("navigate_back", "navigate_home"):
        return [Primitive("key", keys=(_SYSTEM_KEYS[kind.split("_")[1]],))]
    if kind in ("key", "system_button"):
        name = obj.get("button", obj.get("text"))
        if not isinstance(name, str) or name.lower() not in _SYSTEM_KEYS:
            raise ActionError("system_button must be Back, Home, Enter or Menu")
        return [Primitive("key", keys=(_SYSTEM_KEYS[name.lower()],))]
    if kind in ("open_app", "open"):
        name = obj.get("app_name", obj.get("text"))
        return [Primitive("open_app", text=text_value(name, "app_name")[:100])]
    if kind == "wait":
        return [Primitive("wait", seconds=wait_seconds(obj.get("time", 1.0)))]
    if kind == "status":
        status = obj.get("goal_status")
        if status not in ("complete", "infeasible"):
            raise ActionError("goal_status must be 'complete' or 'infeasible'")
        return [Primitive("done" if status == "complete" else "fail")]
    if kind == "terminate":
        status = obj.get("status")
        if status not in ("success", "failure"):
            raise ActionError("terminate needs status 'success' or 'failure'")
        return [Primitive("done" if status == "success" else "fail")]
    if kind == "answer":
        return [Primitive("done", text=text_value(obj.get("text", ""), "text"))]
    raise ActionError(f"unknown Android action {kind[:40]!r}")


__all__ = ["LONG_PRESS_S", "SCROLL_STEPS", "parse_android"]
