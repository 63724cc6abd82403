"""The web action space: WebArena's id-based commands, BrowserGym calls, coordinates, tool calls.

Every syntax is parsed into one :class:`WebAction`; :mod:`.executor` runs it. Accepted forms::

    click [12]            hover [12]          type [12] [hello] [0]     press [Control+a]
    scroll [down]         goto [http://...]   go_back    go_forward     new_tab
    tab_focus [1]         close_tab           stop [the answer]         select [12] [Blue]
    mouse_click [100] [200]                   noop
    click('12')   fill('12', 'hello')   select_option('12', 'Blue')   send_msg_to_user('hi')
    <tool_call>{"name": "click", "arguments": {"element": 12}}</tool_call>

Free text around the action is allowed: the last fenced code block wins (WebArena's prompt ends
with "the next action I will perform is ```click [1234]```"), else the last line that starts with
an action name. Anything that does not parse raises :class:`ActionParseError`, whose message the
env shows the model; it never escapes ``step``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentgym.errors import ToolError
from agentgym.toolcalls import ToolCall, action_text, parse_tool_calls
from agentgym.tools import ToolSet

ID_ACTIONS = ("click", "hover")
NO_ARG_ACTIONS = ("go_back", "go_forward", "new_tab", "close_tab", "noop")
ACTION_NAMES = (*ID_ACTIONS, "type", "press", "scroll", "goto", "tab_focus", "stop", "select",
                "mouse_click", *NO_ARG_ACTIONS)
MAX_TEXT = 2000


class ActionParseError(ValueError):
    """The model's text holds no valid action; the message says what is wrong."""


@dataclass(frozen=True)
class WebAction:
    """One parsed browser action."""

    name: str
    """One of :data:`ACTION_NAMES`."""
    element: int | None = None
    """Element id from the observation (``[12]``), for click/hover/type/select."""
    text: str = ""
    """Typed text, key combo, URL, scroll direction, option label or answer."""
    press_enter: bool = True
    """``type``: press Enter after typing (WebArena's default ``[1]``)."""
    x: float = 0.0
    y: float = 0.0
    """``mouse_click`` coordinates in CSS pixels."""
    index: int = 0
    """``tab_focus``: tab number (0-based)."""

    def to_text(self) -> str:
        """The WebArena-syntax form of this action."""
        if self.name in ID_ACTIONS:
            return f"{self.name} [{self.element}]"
        if self.name == "type":
            return f"type [{self.element}] [{self.text}] [{int(self.press_enter)}]"
        if self.name == "select":
            return f"select [{self.element}] [{self.text}]"
        if self.name == "mouse_click":
            return f"mouse_click [{self.x:g}] [{self.y:g}]"
        if self.name == "tab_focus":
            return f"tab_focus [{self.index}]"
        if self.name in ("press", "scroll", "goto", "stop"):
            return f"{self.name} [{self.text}]"
        return self.name


_FENCE = re.compile(r"```(?:[a-zA-Z]*\n)?(.*?)```", re.DOTALL)
_BRACKETS = re.compile(r"\[(.*?)\](?=\s*(?:\[|$))", re.DOTALL)
_LEADING = re.compile(r"^\s*([a-z_]+)\s*(.*)$", re.DOTALL)


def _extract(text: str) -> str:
    blocks = [b.strip() for b in _FENCE.findall(text) if b.strip()]
    if blocks:
        return blocks[-1]
    lines = [ln.strip().strip("`").strip() for ln in text.strip().splitlines()]
    for line in reversed(lines):
        m = _LEADING.match(line)
        if m and m.group(1) in (*ACTION_NAMES, *_BG_NAMES):
            return line
    return text.strip()


def _element(raw: str, action: str) -> int:
    raw = raw.strip().strip("'\"")
    if not re.fullmatch(r"\d{1,9}", raw):
        raise ActionParseError(f"{action}: element id must be a number like [12], got [{raw}]")
    return int(raw)


def _number(raw: Any, what: str) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError) as e:
        raise ActionParseError(f"{what} must be a number, got {raw!r}") from e
    if not -1e5 <= value <= 1e5:
        raise ActionParseError(f"{what} {value} is out of range")
    return value


def _text(raw: str, what: str) -> str:
    if len(raw) > MAX_TEXT:
        raise ActionParseError(f"{what} is longer than {MAX_TEXT} characters")
    return raw


def parse_webarena(line: str) -> WebAction:
    """Parse one WebArena-syntax command (``click [12]``, ``type [3] [hi] [0]``...)."""
    m = _LEADING.match(line)
    if not m:
        raise ActionParseError(f"no action found in {line[:80]!r}")
    name, rest = m.group(1), m.group(2).strip()
    args = _BRACKETS.findall(rest) if rest.startswith("[") else rest.split()
    if name in NO_ARG_ACTIONS:
        return WebAction(name)
    if name in ID_ACTIONS:
        if len(args) != 1:
            raise ActionParseError(f"usage: {name} [id]")
        return WebAction(name, element=_element(args[0], name))
    if name == "type":
        if len(args) not in (2, 3):
            raise ActionParseError("usage: type [id] [text] [0|1]  (1 = press Enter after)")
        enter = args[2].strip() != "0" if len(args) == 3 else True
        return WebAction("type", element=_element(args[0], name), text=_text(args[1], "text"),
                         press_enter=enter)
    if name == "select":
        if len(args) != 2:
            raise ActionParseError("usage: select [id] [option]")
        return WebAction("select", element=_element(args[0], name), text=_text(args[1], "option"))
    if name == "mouse_click":
        if len(args) != 2:
            raise ActionParseError("usage: mouse_click [x] [y]")
        return WebAction("mouse_click", x=_number(args[0], "x"), y=_number(args[1], "y"))
    if name == "tab_focus":
        if len(args) != 1 or not args[0].strip().isdigit():
            raise ActionParseError("usage: tab_focus [tab number]")
        return WebAction("tab_focus", index=int(args[0]))
    if name == "scroll":
        direction = (args[0] if args else "").strip().lower()
        if direction not in ("up", "down"):
            raise ActionParseError("usage: scroll [up] or scroll [down]")
        return WebAction("scroll", text=direction)
    if name in ("press", "goto"):
        if len(args) != 1 or not args[0].strip():
            raise ActionParseError(f"usage: {name} [{'keys' if name == 'press' else 'url'}]")
        return WebAction(name, text=_text(args[0].strip(), name))
    if name == "stop":
        return WebAction("stop", text=_text(args[0] if args else rest, "answer"))
    raise ActionParseError(f"unknown action {name!r}; actions: {', '.join(ACTION_NAMES)}")


# -- BrowserGym's function syntax ------------------------------------------------------------

_BG_NAMES = ("fill", "select_option", "keyboard_press", "send_msg_to_user", "tab_close",
             "report_infeasible", "dblclick")


def _bg(name: str, args: list[Any]) -> WebAction:
    def need(n: int) -> None:
        if len(args) != n:
            raise ActionParseError(f"{name}() takes {n} argument(s), got {len(args)}")

    if name in ("click", "hover", "dblclick"):
        need(1)
        return WebAction("hover" if name == "hover" else "click", element=_element(str(args[0]),
                                                                                    name))
    if name == "fill":
        need(2)
        return WebAction("type", element=_element(str(args[0]), name),
                         text=_text(str(args[1]), "text"), press_enter=False)
    if name == "select_option":
        need(2)
        return WebAction("select", element=_element(str(args[0]), name), text=str(args[1]))
    if name in ("keyboard_press", "press"):
        if not args:
            raise ActionParseError(f"{name}() needs a key")
        return WebAction("press", text=str(args[-1]))
    if name == "scroll":
        need(2)
        return WebAction("scroll", text="up" if _number(args[1], "delta_y") < 0 else "down")
    if name == "goto":
        need(1)
        return WebAction("goto", text=str(args[0]))
    if name == "mouse_click":
        if len(args) < 2:
            raise ActionParseError("mouse_click(x, y)")
        return WebAction("mouse_click", x=_number(args[0], "x"), y=_number(args[1], "y"))
    if name == "tab_focus":
        need(1)
        return WebAction("tab_focus", index=int(_number(args[0], "tab")))
    if name in ("send_msg_to_user", "report_infeasible"):
        return WebAction("stop", text=str(args[0]) if args else "")
    if name == "tab_close":
        return WebAction("close_tab")
    if name in NO_ARG_ACTIONS:
        return WebAction(name)
    raise ActionParseError(f"unknown function {name}()")


def parse_function_call(line: str) -> WebAction:
    """Parse BrowserGym's ``click('12')`` style (literal arguments only)."""
    try:
        tree = ast.parse(line.strip(), mode="eval")
    except SyntaxError as e:
        raise ActionParseError(f"cannot parse {line[:80]!r}: {e.msg}") from e
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise ActionParseError(f"expected a call like click('12'), got {line[:80]!r}")
    try:
        args = [ast.literal_eval(a) for a in call.args]
        args += [ast.literal_eval(k.value) for k in call.keywords]
    except ValueError as e:
        raise ActionParseError(f"{call.func.id}(): arguments must be literals") from e
    return _bg(call.func.id, args)


# -- tool calls ------------------------------------------------------------------------------


def _tool_to_action(call: ToolCall, tools: ToolSet) -> WebAction:
    try:
        args = tools.get(call.name).validate(call.arguments)
    except ToolError as e:
        raise ActionParseError(str(e)) from e
    name = call.name
    if name in ("click", "hover"):
        return WebAction(name, element=args["element"])
    if name == "type":
        return WebAction("type", element=args["element"], text=_text(args["text"], "text"),
                         press_enter=args["press_enter"])
    if name == "select":
        return WebAction("select", element=args["element"], text=args["option"])
    if name == "mouse_click":
        return WebAction("mouse_click", x=_number(args["x"], "x"), y=_number(args["y"], "y"))
    if name == "tab_focus":
        return WebAction("tab_focus", index=args["index"])
    if name == "scroll":
        return parse_webarena(f"scroll [{args['direction']}]")
    if name in ("press", "goto"):
        return WebAction(name, text=args["keys" if name == "press" else "url"])
    if name == "stop":
        return WebAction("stop", text=args["answer"])
    return WebAction(name)


def parse_action(action: Any, tools: ToolSet | None = None) -> WebAction:
    """Parse a model turn (text, message dict, tool calls) into one :class:`WebAction`."""
    if isinstance(action, WebAction):
        return action
    try:
        calls = parse_tool_calls(action)
    except ToolError as e:
        raise ActionParseError(str(e)) from e
    if calls:
        if len(calls) > 1:
            raise ActionParseError("one action per turn: got several tool calls")
        return _tool_to_action(calls[0], tools or web_tools())
    text = action_text(action)
    if not text.strip():
        raise ActionParseError("empty action; write one action such as click [12]")
    line = _extract(text)
    m = _LEADING.match(line)
    if m and m.group(2).lstrip().startswith("(") and m.group(1) in (*ACTION_NAMES, *_BG_NAMES):
        return parse_function_call(line)
    return parse_webarena(line)


# -- tool schemas ----------------------------------------------------------------------------


def _schema_functions() -> list[Callable[..., Any]]:
    def click(element: int) -> None:
        """Click an element.

        Args:
            element: The element id shown in brackets in the observation.
        """

    def hover(element: int) -> None:
        """Move the mouse over an element.

        Args:
            element: The element id.
        """

    def type(element: int, text: str, press_enter: bool = True) -> None:  # noqa: A001
        """Clear a field, type text into it and optionally press Enter.

        Args:
            element: The element id of the text field.
            text: The text to type.
            press_enter: Press Enter after typing.
        """

    def select(element: int, option: str) -> None:
        """Choose an option of a select box by its label.

        Args:
            element: The element id of the select box.
            option: The option's visible label.
        """

    def press(keys: str) -> None:
        """Press a key combination such as Enter or Control+a.

        Args:
            keys: Keys joined by '+'.
        """

    def scroll(direction: str) -> None:
        """Scroll the page.

        Args:
            direction: 'up' or 'down'.
        """

    def goto(url: str) -> None:
        """Open a URL in the current tab.

        Args:
            url: An http(s) URL of an allowed site.
        """

    def mouse_click(x: float, y: float) -> None:
        """Click at page coordinates (CSS pixels).

        Args:
            x: Horizontal position.
            y: Vertical position.
        """

    def tab_focus(index: int) -> None:
        """Switch to a tab.

        Args:
            index: Tab number, starting at 0.
        """

    def go_back() -> None:
        """Go back in history."""

    def go_forward() -> None:
        """Go forward in history."""

    def new_tab() -> None:
        """Open a new blank tab."""

    def close_tab() -> None:
        """Close the current tab."""

    def stop(answer: str = "") -> None:
        """Finish the task, with the answer when the task asks a question.

        Args:
            answer: The final answer (empty when none is needed).
        """

    return [click, hover, type, select, press, scroll, goto, mouse_click, tab_focus, go_back,
            go_forward, new_tab, close_tab, stop]


def web_tools() -> ToolSet:
    """The action space as tools (OpenAI schemas via ``to_openai()``, MCP via ``to_mcp()``)."""
    return ToolSet(_schema_functions())


__all__ = [
    "ACTION_NAMES",
    "ActionParseError",
    "WebAction",
    "parse_action",
    "parse_function_call",
    "parse_webarena",
    "web_tools",
]
