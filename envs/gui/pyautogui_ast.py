"""Model-written pyautogui code, parsed (never executed) into :class:`~.actions.Primitive` lists.

OSWorld's pyautogui action space sends the model's Python to the VM and runs it. Here it is only
*parsed*: :func:`parse_pyautogui` walks the AST and accepts a module made of ``import pyautogui``
/ ``import time`` and calls from an allow-list (``pyautogui.click``, ``write``, ``hotkey``,
``time.sleep``...) whose arguments are literals. Anything else (other names, attributes,
variables, loops, ``exec``, ``__import__``, arithmetic) is refused with an :class:`ActionError`
naming the line, and nothing runs.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable
from typing import Any

from .actions import (
    ActionError,
    Primitive,
    button_number,
    coordinate,
    normalize_key,
    text_value,
    wait_seconds,
)

MAX_CODE = 10_000
"""Longest code accepted."""
MAX_CALLS = 50
"""Most calls in one action."""

_Args = dict[str, Any]


def _opt_xy(a: _Args) -> tuple[int | None, int | None]:
    x, y = a.get("x"), a.get("y")
    if isinstance(x, tuple | list) and y is None and len(x) == 2:
        x, y = x
    if x is None and y is None:
        return None, None
    if x is None or y is None:
        raise ActionError("give both x and y")
    return coordinate(x, "x"), coordinate(y, "y")


def _req_xy(a: _Args, name: str) -> tuple[int, int]:
    x, y = _opt_xy(a)
    if x is None or y is None:
        raise ActionError(f"{name} needs x and y")
    return x, y


def _click(button: str | None, clicks: int | None) -> Callable[[_Args], list[Primitive]]:
    def build(a: _Args) -> list[Primitive]:
        x, y = _opt_xy(a)
        n = clicks if clicks is not None else a.get("clicks", 1)
        if n not in (1, 2, 3):
            raise ActionError("clicks must be 1, 2 or 3")
        b = button_number(button or a.get("button", "left"))
        return [Primitive("click", x, y, button=b, clicks=n)]
    return build


def _keys(value: Any) -> tuple[str, ...]:
    if isinstance(value, list | tuple):
        if not 1 <= len(value) <= 5:
            raise ActionError("give 1 to 5 keys")
        return tuple(normalize_key(k) for k in value)
    return (normalize_key(value),)


def _press(a: _Args) -> list[Primitive]:
    presses = a.get("presses", 1)
    if not isinstance(presses, int) or isinstance(presses, bool) or not 1 <= presses <= 20:
        raise ActionError("presses must be an integer from 1 to 20")
    keys = _keys(a.get("keys"))
    return [Primitive("key", keys=(k,)) for _ in range(presses) for k in keys]


def _scroll(horizontal: bool) -> Callable[[_Args], list[Primitive]]:
    def build(a: _Args) -> list[Primitive]:
        x, y = _opt_xy(a)
        steps = coordinate(a.get("clicks"), "clicks")
        out = [Primitive("move", x, y)] if x is not None else []
        # pyautogui: positive clicks scroll up (vertical) or right (horizontal)
        return [*out, Primitive("scroll", dx=steps if horizontal else 0,
                                dy=0 if horizontal else -steps)]
    return build


def _rel(kind: str) -> Callable[[_Args], list[Primitive]]:
    def build(a: _Args) -> list[Primitive]:
        dx, dy = _req_xy({"x": a.get("xOffset"), "y": a.get("yOffset")}, kind)
        return [Primitive(f"{kind}_rel", dx, dy)]
    return build


# name -> (positional parameter names, builder)
CALLS: dict[str, tuple[tuple[str, ...], Callable[[_Args], list[Primitive]]]] = {
    "click": (("x", "y", "clicks", "interval", "button"), _click(None, None)),
    "doubleClick": (("x", "y", "interval", "button"), _click(None, 2)),
    "tripleClick": (("x", "y", "interval", "button"), _click(None, 3)),
    "rightClick": (("x", "y"), _click("right", 1)),
    "middleClick": (("x", "y"), _click("middle", 1)),
    "moveTo": (("x", "y", "duration"), lambda a: [Primitive("move", *_req_xy(a, "moveTo"))]),
    "moveRel": (("xOffset", "yOffset", "duration"), _rel("move")),
    "move": (("xOffset", "yOffset", "duration"), _rel("move")),
    "dragTo": (("x", "y", "duration", "button"),
               lambda a: [Primitive("drag", *_req_xy(a, "dragTo"),
                                    button=button_number(a.get("button", "left")))]),
    "dragRel": (("xOffset", "yOffset", "duration", "button"), _rel("drag")),
    "drag": (("xOffset", "yOffset", "duration", "button"), _rel("drag")),
    "mouseDown": (("x", "y", "button"), lambda a: [
        *([Primitive("move", *_req_xy(a, "mouseDown"))] if _opt_xy(a)[0] is not None else []),
        Primitive("down", button=button_number(a.get("button", "left")))]),
    "mouseUp": (("x", "y", "button"), lambda a: [
        *([Primitive("move", *_req_xy(a, "mouseUp"))] if _opt_xy(a)[0] is not None else []),
        Primitive("up", button=button_number(a.get("button", "left")))]),
    "scroll": (("clicks", "x", "y"), _scroll(False)),
    "vscroll": (("clicks", "x", "y"), _scroll(False)),
    "hscroll": (("clicks", "x", "y"), _scroll(True)),
    "write": (("message", "interval"),
              lambda a: [Primitive("type", text=text_value(a.get("message"), "message"))]),
    "typewrite": (("message", "interval"), lambda a: (
        [Primitive("type", text=text_value(a.get("message"), "message"))]
        if isinstance(a.get("message"), str) else _press({"keys": a.get("message")}))),
    "press": (("keys", "presses", "interval"), _press),
    "keyDown": (("key",), lambda a: [Primitive("key_down", keys=(normalize_key(a.get("key")),))]),
    "keyUp": (("key",), lambda a: [Primitive("key_up", keys=(normalize_key(a.get("key")),))]),
    "hotkey": (("*keys",), lambda a: [Primitive("key", keys=_keys(list(a.get("keys", ()))))]),
    "sleep": (("seconds",), lambda a: [Primitive("wait", seconds=wait_seconds(a.get("seconds")))]),
}
_IGNORED_KWARGS = {"interval", "duration", "tween", "logScreenshot", "_pause"}


def _literal(node: ast.expr, line: int) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as e:
        raise ActionError(f"line {line}: arguments must be literal values") from e


def _call_name(func: ast.expr, line: int) -> str:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        module, attr = func.value.id, func.attr
        if module == "pyautogui" and attr in CALLS and attr != "sleep":
            return attr
        if module in ("time", "pyautogui") and attr == "sleep":
            return "sleep"
        raise ActionError(f"line {line}: {module}.{attr}() is not an allowed call")
    raise ActionError(f"line {line}: only pyautogui.<function>(...) calls are allowed")


def _parse_call(call: ast.Call) -> list[Primitive]:
    line = call.lineno
    name = _call_name(call.func, line)
    params, build = CALLS[name]
    args: _Args = {}
    if params and params[0].startswith("*"):
        if call.keywords:
            raise ActionError(f"line {line}: {name}() takes only positional keys")
        args[params[0][1:]] = [_literal(a, line) for a in call.args]
    else:
        if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(params):
            raise ActionError(f"line {line}: too many arguments for {name}()")
        for pname, node in zip(params, call.args, strict=False):
            args[pname] = _literal(node, line)
        for kw in call.keywords:
            if kw.arg is None or (kw.arg not in params and kw.arg not in _IGNORED_KWARGS):
                raise ActionError(f"line {line}: unexpected argument {kw.arg!r} for {name}()")
            args[kw.arg] = _literal(kw.value, line)
    try:
        return build(args)
    except ActionError as e:
        raise ActionError(f"line {line}: {name}(): {e}") from e


def parse_pyautogui(code: str) -> list[Primitive]:
    """Parse ``code`` into primitives; raise :class:`ActionError` for anything not allowed."""
    if not isinstance(code, str) or not code.strip():
        raise ActionError("empty code")
    if len(code) > MAX_CODE:
        raise ActionError(f"code longer than {MAX_CODE} characters")
    try:
        with warnings.catch_warnings():  # the model's invalid escapes are not our warnings
            warnings.simplefilter("ignore")
            tree = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        raise ActionError(f"cannot parse the code: {e}") from e
    out: list[Primitive] = []
    calls = 0
    for stmt in tree.body:
        if isinstance(stmt, ast.Import) and all(
            a.name in ("pyautogui", "time") and a.asname is None for a in stmt.names
        ):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            calls += 1
            if calls > MAX_CALLS:
                raise ActionError(f"more than {MAX_CALLS} calls in one action")
            out.extend(_parse_call(stmt.value))
            continue
        what = type(stmt).__name__
        raise ActionError(f"line {stmt.lineno}: {what} statements are not allowed; "
                          "write only pyautogui.<function>(literal arguments) calls")
    if not out:
        raise ActionError("the code holds no pyautogui call")
    return out


__all__ = ["CALLS", "MAX_CALLS", "MAX_CODE", "parse_pyautogui"]
