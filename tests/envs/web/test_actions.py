"""The action parser: WebArena, BrowserGym and tool-call syntax, and what it refuses."""

from __future__ import annotations

import pytest

from agentgym.envs.web.actions import ActionParseError, WebAction, parse_action, web_tools
from agentgym.toolcalls import ToolCall


@pytest.mark.parametrize(("text", "expected"), [
    ("click [12]", WebAction("click", element=12)),
    ("hover [7]", WebAction("hover", element=7)),
    ("type [3] [hello world] [0]", WebAction("type", element=3, text="hello world",
                                             press_enter=False)),
    ("type [3] [a [b] c]", WebAction("type", element=3, text="a [b] c")),
    ("press [Control+a]", WebAction("press", text="Control+a")),
    ("scroll [down]", WebAction("scroll", text="down")),
    ("goto [http://127.0.0.1:9/x?a=1]", WebAction("goto", text="http://127.0.0.1:9/x?a=1")),
    ("go_back", WebAction("go_back")),
    ("tab_focus [2]", WebAction("tab_focus", index=2)),
    ("stop [42 apples]", WebAction("stop", text="42 apples")),
    ("stop", WebAction("stop")),
    ("select [5] [Blue]", WebAction("select", element=5, text="Blue")),
    ("mouse_click [10] [20.5]", WebAction("mouse_click", x=10, y=20.5)),
])
def test_webarena_syntax(text: str, expected: WebAction) -> None:
    assert parse_action(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("click('12')", WebAction("click", element=12)),
    ('fill("4", "abc")', WebAction("type", element=4, text="abc", press_enter=False)),
    ("select_option('5', 'Red')", WebAction("select", element=5, text="Red")),
    ("keyboard_press('Enter')", WebAction("press", text="Enter")),
    ("scroll(0, -300)", WebAction("scroll", text="up")),
    ("send_msg_to_user('done')", WebAction("stop", text="done")),
    ("mouse_click(3, 4)", WebAction("mouse_click", x=3, y=4)),
    ("tab_close()", WebAction("close_tab")),
])
def test_browsergym_syntax(text: str, expected: WebAction) -> None:
    assert parse_action(text) == expected


def test_free_text_around_the_action() -> None:
    reply = ("The okay button has id 22.\nIn summary, the next action I will perform is "
             "```click [22]```")
    assert parse_action(reply) == WebAction("click", element=22)
    assert parse_action("I think so.\nclick [5]\n") == WebAction("click", element=5)


def test_tool_calls_and_schemas() -> None:
    tools = web_tools()
    names = tools.names()
    assert {"click", "type", "goto", "stop", "mouse_click", "tab_focus"} <= set(names)
    schema = tools.get("type").to_openai()["function"]["parameters"]
    assert schema["required"] == ["element", "text"]
    assert tools.get("click").to_mcp()["inputSchema"]["properties"]["element"]["type"] == "integer"
    call = ToolCall("type", {"element": 4, "text": "hi", "press_enter": False})
    assert parse_action(call, tools) == WebAction("type", element=4, text="hi", press_enter=False)
    hermes = '<tool_call>{"name": "click", "arguments": {"element": 9}}</tool_call>'
    assert parse_action(hermes) == WebAction("click", element=9)


@pytest.mark.parametrize("bad", [
    "", "   ", "click", "click [abc]", "click [1] [2]", "type [1]", "scroll [left]",
    "tab_focus [x]", "fly [1]", "click('1', '2')", "click(__import__('os'))",
    "mouse_click [1e9] [0]", "type [1] [" + "x" * 5000 + "]", "goto []",
    '<tool_call>{"name": "click", "arguments": {"element": "nine"}}</tool_call>',
    '<tool_call>{"name": "explode", "arguments": {}}</tool_call>',
    '<tool_call>{"name": "click", "arguments": {"element": 1}}</tool_call>'
    '<tool_call>{"name": "click", "arguments": {"element": 2}}</tool_call>',
])
def test_malformed_actions_raise_a_parse_error(bad: str) -> None:
    with pytest.raises(ActionParseError):
        parse_action(bad)


def test_to_text_round_trips() -> None:
    for action in [WebAction("click", element=3), WebAction("type", element=1, text="x y",
                                                          press_enter=False),
                   WebAction("stop", text="ans"), WebAction("tab_focus", index=1),
                   WebAction("select", element=2, text="A"), WebAction("go_forward")]:
        assert parse_action(action.to_text()) == action
