"""Tools from typed functions: schema, validation, OpenAI and MCP export."""

from typing import Literal

import pytest

from agentgym import Tool, ToolArgumentError, ToolNotFound, ToolSchemaError, ToolSet, tool


def search(query: str, top_k: int = 3, mode: Literal["bm25", "dense"] = "bm25") -> str:
    """Search the corpus.

    Args:
        query: Words to look for.
        top_k: How many passages
            to return.
        mode: Retriever to use.

    Returns:
        Passages.
    """
    return f"{query}:{top_k}:{mode}"


def test_schema_from_signature_and_docstring():
    t = Tool.from_function(search)
    assert t.name == "search"
    assert t.description == "Search the corpus."
    params = t.parameters
    assert params["type"] == "object"
    assert params["required"] == ["query"]
    assert params["properties"]["query"] == {"type": "string", "description": "Words to look for."}
    assert params["properties"]["top_k"]["default"] == 3
    assert params["properties"]["top_k"]["description"] == "How many passages to return."
    assert params["properties"]["mode"]["enum"] == ["bm25", "dense"]
    assert params["additionalProperties"] is False


def test_openai_and_mcp_export():
    t = Tool.from_function(search)
    assert t.to_openai() == {
        "type": "function",
        "function": {"name": "search", "description": "Search the corpus.",
                     "parameters": t.parameters},
    }
    assert t.to_mcp() == {"name": "search", "description": "Search the corpus.",
                          "inputSchema": t.parameters}


def test_call_validates_and_coerces():
    t = Tool.from_function(search)
    assert t({"query": "x", "top_k": "5"}) == "x:5:bm25"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({}, "field 'query': Field required"),
        ({"query": "x", "top_k": "many"}, "field 'top_k'"),
        ({"query": "x", "mode": "magic"}, "field 'mode'"),
        ({"query": "x", "bogus": 1}, "field 'bogus'"),
        (["x"], "must be a JSON object"),
    ],
)
def test_bad_arguments_name_the_field(args, fragment):
    with pytest.raises(ToolArgumentError, match="tool 'search'") as e:
        Tool.from_function(search)(args)
    assert fragment in str(e.value)


def test_untyped_parameter_is_refused():
    def f(x):  # noqa: ANN001
        return x

    with pytest.raises(ToolSchemaError, match="parameter 'x' has no type"):
        Tool.from_function(f)


def test_decorator_and_toolset_lookup():
    @tool(name="add")
    def add_numbers(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    ts = ToolSet([add_numbers, search])
    assert ts.names() == ["add", "search"]
    assert ts.get("add")({"a": 2, "b": 3}) == 5
    with pytest.raises(ToolNotFound, match="available tools: add, search"):
        ts.get("nope")
    assert [d["function"]["name"] for d in ts.to_openai()] == ["add", "search"]
