"""Action spaces: computer_13 JSON, AndroidWorld / UI-S1 JSON and the dispatching parser."""

from __future__ import annotations

import pytest

from agentgym import ToolCall
from agentgym.envs.gui import ActionError, Primitive, normalize_key, parse_action
from agentgym.envs.gui.actions import MAX_WAIT_S, parse_computer13
from agentgym.envs.gui.android import SCROLL_STEPS, parse_android


def test_computer13_actions_map_to_primitives():
    assert parse_computer13({"action_type": "CLICK", "x": 10, "y": 20}) == [
        Primitive("click", 10, 20)]
    assert parse_computer13({"action_type": "CLICK", "button": "right", "num_clicks": 2}) == [
        Primitive("click", None, None, button=3, clicks=2)]
    assert parse_computer13({"action_type": "DOUBLE_CLICK", "x": 1, "y": 2})[0].clicks == 2
    assert parse_computer13({"action_type": "RIGHT_CLICK", "x": 1, "y": 2})[0].button == 3
    typed = parse_computer13({"action_type": "TYPING", "text": "hé"})
    assert typed == [Primitive("type", text="hé")]
    assert parse_computer13({"action_type": "HOTKEY", "keys": ["ctrl", "s"]}) == [
        Primitive("key", keys=("ctrl", "s"))]
    assert parse_computer13({"action_type": "PRESS", "key": "enter"})[0].keys == ("Return",)
    assert parse_computer13({"action_type": "SCROLL", "dx": 0, "dy": 3})[0].dy == 3
    assert parse_computer13({"action_type": "DRAG_TO", "x": 5, "y": 6})[0].kind == "drag"
    assert parse_computer13({"action_type": "WAIT", "seconds": 99})[0].seconds == MAX_WAIT_S
    assert parse_computer13({"action_type": "done"})[0].kind == "done"


@pytest.mark.parametrize("bad", [
    {"action_type": "CLICK", "x": "10", "y": 2}, {"action_type": "CLICK", "x": 1},
    {"action_type": "CLICK", "x": True, "y": 2}, {"action_type": "CLICK", "num_clicks": 9},
    {"action_type": "TYPING", "text": 5}, {"action_type": "TYPING", "text": "x" * 5000},
    {"action_type": "PRESS", "key": "nosuchkey"}, {"action_type": "HOTKEY", "keys": []},
    {"action_type": "CLICK", "x": float("nan"), "y": 1}, {"action_type": "EXPLODE"}, {},
    {"action_type": "CLICK", "x": 1e300, "y": 1}, {"action_type": "CLICK", "button": "thumb"},
])
def test_computer13_refuses_bad_actions(bad):
    with pytest.raises(ActionError):
        parse_computer13(bad)


def test_key_names_from_pyautogui_osworld_and_xdotool():
    assert [normalize_key(k) for k in ("enter", "ESC", "ctrl", "a", "F5", "-", "pagedown",
                                       "BackSpace")] == [
        "Return", "Escape", "ctrl", "a", "F5", "minus", "Next", "BackSpace"]


def test_androidworld_actions():
    assert parse_android({"action_type": "click", "x": 3, "y": 4}) == [Primitive("click", 3, 4)]
    assert parse_android({"action_type": "long_press", "x": 3, "y": 4})[0].kind == "long_press"
    assert parse_android({"action_type": "scroll", "direction": "down"}) == [
        Primitive("scroll", dy=SCROLL_STEPS)]
    typed = parse_android({"action_type": "input_text", "text": "hi", "x": 1, "y": 2})
    assert [p.kind for p in typed] == ["click", "type"]
    assert parse_android({"action_type": "navigate_back"})[0].keys == ("Escape",)
    assert parse_android({"action_type": "keyboard_enter"})[0].keys == ("Return",)
    assert parse_android({"action_type": "open_app", "app_name": "xterm"})[0].text == "xterm"
    assert parse_android({"action_type": "status", "goal_status": "infeasible"})[0].kind == "fail"
    assert parse_android({"action_type": "answer", "text": "42"}) == [Primitive("done", text="42")]


def test_ui_s1_actions():
    assert parse_android({"action": "click", "coordinate": [7, 8]}) == [Primitive("click", 7, 8)]
    swipe = parse_android({"action": "swipe", "coordinate": [1, 2], "coordinate2": [3, 4]})
    assert swipe == [Primitive("swipe", 1, 2, 3, 4)]
    assert parse_android({"action": "system_button", "button": "Home"})[0].keys == ("super",)
    assert parse_android({"action": "terminate", "status": "success"})[0].kind == "done"
    assert parse_android({"action": "type", "text": "abc"}) == [Primitive("type", text="abc")]


@pytest.mark.parametrize("bad", [
    {"action_type": "click", "index": 3}, {"action_type": "scroll", "direction": "sideways"},
    {"action_type": "status", "goal_status": "maybe"}, {"action": "swipe", "coordinate": [1]},
    {"action": "system_button", "button": "Power"}, {"action_type": 5}, [],
])
def test_android_refuses_bad_actions(bad):
    with pytest.raises(ActionError):
        parse_android(bad)


def test_parse_action_dispatches_every_space():
    assert parse_action(" done ")[0].kind == "done"
    assert parse_action("WAIT")[0].kind == "wait"
    assert parse_action("```python\npyautogui.click(1, 2)\n```") == [Primitive("click", 1, 2)]
    assert parse_action('{"action_type": "CLICK", "x": 1, "y": 2}') == [Primitive("click", 1, 2)]
    assert parse_action('```json\n[{"action_type": "click", "x": 1, "y": 2}]\n```') == [
        Primitive("click", 1, 2)]
    call = ToolCall("computer", {"action_type": "TYPING", "text": "x", "x": None})
    assert parse_action([call]) == [Primitive("type", text="x")]
    text = '<tool_call>{"name": "computer", "arguments": {"action_type": "DONE"}}</tool_call>'
    assert parse_action(text)[0].kind == "done"
    message = {"role": "assistant", "content": None, "tool_calls": [{"id": "1", "type": "function",
               "function": {"name": "computer", "arguments": '{"action_type": "FAIL"}'}}]}
    assert parse_action(message)[0].kind == "fail"


def test_action_space_restricts_what_is_accepted():
    with pytest.raises(ActionError):
        parse_action("pyautogui.click(1, 2)", "android")
    with pytest.raises(ActionError):
        parse_action('{"action_type": "click", "x": 1, "y": 2}', "pyautogui")
    assert parse_action('{"action_type": "click", "x": 1, "y": 2}', "android")[0].x == 1


@pytest.mark.parametrize("bad", ["", "hello", "{not json", "[1, 2]", None, 3, b"x",
                                 "[" * 5000, '{"action_type": "MOVE_TO"}', ToolCall("rm", {})])
def test_parse_action_errors_are_action_errors(bad):
    with pytest.raises(ActionError):
        parse_action(bad)
