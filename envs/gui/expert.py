"""Scripted experts: one per task kind, reading click targets from the app's state dump.

The Tk apps publish each widget's bounding box (their accessibility tree), so the expert clicks
exactly where a person would. Experts speak all three action spaces on purpose: the form expert
writes pyautogui code, the todo expert ``computer_13`` JSON and the settings expert AndroidWorld
JSON, so every parser is exercised end to end by a 100 % run. Each returns the turns' texts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Point = Callable[[float, float], tuple[int, int]]
"""Maps screen pixels to screenshot pixels."""


def _center(state: dict[str, Any], name: str, shot: Point) -> tuple[int, int]:
    for w in state.get("widgets", []):
        if w["name"] == name:
            x, y, width, height = w["bbox"]
            return shot(x + width / 2, y + height / 2)
    raise KeyError(f"no widget {name!r} in the app state")


def _form(spec: dict[str, Any], state: dict[str, Any], shot: Point) -> list[str]:
    lines = ["import pyautogui"]
    for field in ("name", "email", "age", "city"):
        lines.append("pyautogui.click({}, {})".format(*_center(state, field, shot)))
        lines.append(f"pyautogui.write({spec['values'][field]!r})")
    if spec["values"]["newsletter"]:
        lines.append("pyautogui.click({}, {})".format(*_center(state, "newsletter", shot)))
    lines.append("pyautogui.click({}, {})".format(*_center(state, "submit", shot)))
    return ["```python\n" + "\n".join(lines) + "\n```", "DONE"]


def _click13(xy: tuple[int, int]) -> dict[str, Any]:
    return {"action_type": "CLICK", "x": xy[0], "y": xy[1]}


def _row(state: dict[str, Any], i: int, shot: Point) -> tuple[int, int]:
    x, y, w, h = state["rows"][i]
    return shot(x + min(w, 80) / 2, y + h / 2)


def _todo(spec: dict[str, Any], state: dict[str, Any], shot: Point) -> list[str]:
    actions: list[dict[str, Any]] = []
    for item in spec.get("add", []):
        actions += [_click13(_center(state, "new_item", shot)),
                    {"action_type": "TYPING", "text": item},
                    _click13(_center(state, "add", shot))]
    for key, button in (("done", "done"), ("delete", "delete")):
        if key in spec:
            actions += [_click13(_row(state, spec[key], shot)),
                        _click13(_center(state, button, shot))]
    return [json.dumps(actions), json.dumps({"action_type": "DONE"})]


def _settings(spec: dict[str, Any], state: dict[str, Any], shot: Point) -> list[str]:
    want, now = spec["values"], state["values"]
    acts: list[dict[str, Any]] = []

    def click(name: str, kind: str = "click") -> None:
        x, y = _center(state, name, shot)
        acts.append({"action_type": kind, "x": x, "y": y})

    for key in ("dark_mode", "notifications"):
        if want[key] != now[key]:
            click(key)
    click(f"language_{want['language'].lower()}")
    click("font_size", "double_tap")
    acts.append({"action_type": "input_text", "text": str(want["font_size"])})
    click("apply")
    return [json.dumps(acts), json.dumps({"action_type": "status", "goal_status": "complete"})]


def expert_turns(spec: dict[str, Any], state: dict[str, Any] | None, shot: Point) -> list[str]:
    """The expert's turns for a task's ``expert`` spec and the app's current state."""
    kind = spec.get("kind")
    if kind == "fail":
        return ["FAIL"]
    if kind == "keys":
        return ["```python\nimport pyautogui\nimport time\n" + "\n".join(spec["code"]) + "\n```",
                "DONE"]
    builders = {"form": _form, "todo": _todo, "settings": _settings}
    if kind not in builders or state is None:
        raise ValueError(f"no expert for {kind!r} without an app state")
    return builders[kind](spec, state, shot)


__all__ = ["expert_turns"]
