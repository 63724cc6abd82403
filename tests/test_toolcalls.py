"""Parsing tool calls from the formats models emit."""

import json

import pytest

from agentgym import ToolCall, ToolCallParseError, parse_tool_calls


def test_hermes_single_and_multiple():
    text = (
        'I will look.\n<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>'
        '<tool_call>{"name": "b", "arguments": "{\\"y\\": 2}"}</tool_call>'
    )
    calls = parse_tool_calls(text)
    assert [(c.name, c.arguments) for c in calls] == [("a", {"x": 1}), ("b", {"y": 2})]


def test_hermes_unclosed_tag_still_parses():
    calls = parse_tool_calls('<tool_call>{"name": "a", "arguments": {}}')
    assert calls[0].name == "a"


def test_openai_message_and_list():
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "q", "arguments": json.dumps({"sql": "SELECT 1"})}},
        ],
    }
    (call,) = parse_tool_calls(msg)
    assert (call.id, call.name, call.arguments) == ("call_1", "q", {"sql": "SELECT 1"})
    assert parse_tool_calls(msg["tool_calls"])[0].arguments == {"sql": "SELECT 1"}


def test_openai_message_with_text_content_falls_back_to_text():
    calls = parse_tool_calls({"content": '<tool_call>{"name": "z", "arguments": {}}</tool_call>'})
    assert calls[0].name == "z"


def test_react_forms():
    text = 'Thought: check\nAction: search\nAction Input: {"query": "paris"}\nObservation: ...'
    assert parse_tool_calls(text)[0].arguments == {"query": "paris"}
    assert parse_tool_calls('Action: lookup[{"id": 3}]')[0].arguments == {"id": 3}
    two = 'Action: a\nAction Input: {"x": 1}\nAction: b\nAction Input: {}'
    assert [c.name for c in parse_tool_calls(two)] == ["a", "b"]


def test_llama_parameters_key_and_bare_json():
    (call,) = parse_tool_calls('{"name": "f", "parameters": {"k": "v"}}')
    assert call.arguments == {"k": "v"}


def test_plain_text_has_no_calls():
    assert parse_tool_calls("The answer is 42.") == []


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ("<tool_call>{not json}</tool_call>", "not valid JSON"),
        ('<tool_call>{"arguments": {}}</tool_call>', "missing tool 'name'"),
        ('<tool_call>{"name": "a", "arguments": [1]}</tool_call>', "must be a JSON object"),
        ("Action: a[{", "unbalanced"),
        ({"tool_calls": "x"}, "must be a list"),
        (42, "must be text or tool calls"),
    ],
)
def test_malformed_calls_raise_clear_errors(action, fragment):
    with pytest.raises(ToolCallParseError, match=fragment):
        parse_tool_calls(action)


def test_round_trip_formats():
    call = ToolCall("f", {"a": [1, 2]}, id="call_9")
    assert parse_tool_calls(call.to_hermes())[0].arguments == {"a": [1, 2]}
    assert parse_tool_calls([call.to_openai()])[0].id == "call_9"
