"""Tools: typed Python functions exposed to a model with a JSON Schema.

``Tool.from_function(fn)`` reads the signature (types, defaults) and the docstring (summary and
a Google-style ``Args:`` section) and builds a pydantic model that validates arguments. A tool
exports itself as OpenAI function-calling JSON (:meth:`Tool.to_openai`) and as an MCP tool
definition (:meth:`Tool.to_mcp`).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, get_type_hints

import pydantic

from .errors import ToolArgumentError, ToolNotFound, ToolSchemaError

_ARG_LINE = re.compile(r"^\s{2,}(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument descriptions."""
    if not doc:
        return "", {}
    doc = inspect.cleandoc(doc)
    head, _, rest = doc.partition("\nArgs:\n")
    description = " ".join(line.strip() for line in head.strip().splitlines()).strip()
    args: dict[str, str] = {}
    current = None
    for line in rest.splitlines():
        if line and not line.startswith(" "):
            break  # next section (Returns:, Raises:...)
        m = _ARG_LINE.match(line)
        if m:
            current = m.group(1).lstrip("*")
            args[current] = m.group(2).strip()
        elif current and line.strip():
            args[current] += " " + line.strip()
    return description, args


def _format_validation_error(name: str, err: pydantic.ValidationError) -> str:
    parts = []
    for e in err.errors():
        field = ".".join(str(p) for p in e["loc"]) or "arguments"
        parts.append(f"field {field!r}: {e['msg']}")
    return f"invalid arguments for tool {name!r}: " + "; ".join(parts)


@dataclass
class Tool:
    """A callable exposed to a model, with a name, description and argument schema."""

    name: str
    description: str
    function: Callable[..., Any]
    arguments_model: type[pydantic.BaseModel]

    @classmethod
    def from_function(
        cls, fn: Callable[..., Any], *, name: str | None = None, description: str | None = None
    ) -> Tool:
        """Build a tool from a typed function; every parameter needs a type annotation."""
        tool_name = name or fn.__name__
        if not re.fullmatch(r"[A-Za-z_][\w-]{0,63}", tool_name):
            raise ToolSchemaError(f"tool name {tool_name!r} is not a valid function name")
        summary, arg_docs = parse_docstring(fn.__doc__)
        try:
            hints = get_type_hints(fn)
        except Exception as e:
            raise ToolSchemaError(f"cannot resolve type hints of {tool_name!r}: {e}") from e
        fields: dict[str, Any] = {}
        for param in inspect.signature(fn).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise ToolSchemaError(f"tool {tool_name!r}: *args/**kwargs are not supported")
            if param.name not in hints:
                raise ToolSchemaError(f"tool {tool_name!r}: parameter {param.name!r} has no type")
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (
                hints[param.name],
                pydantic.Field(default, description=arg_docs.get(param.name)),
            )
        model = pydantic.create_model(  # type: ignore[call-overload]
            f"{tool_name}_arguments",
            __config__=pydantic.ConfigDict(extra="forbid"),
            **fields,
        )
        return cls(tool_name, description or summary or tool_name, fn, model)

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON Schema of the arguments object."""
        schema = self.arguments_model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema.setdefault("properties", {})
        return schema

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions ``tools`` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def to_mcp(self) -> dict[str, Any]:
        """The Model Context Protocol ``Tool`` definition (``tools/list`` entry)."""
        return {"name": self.name, "description": self.description, "inputSchema": self.parameters}

    def validate(self, arguments: Any) -> dict[str, Any]:
        """Validate ``arguments`` and return them coerced; raise :class:`ToolArgumentError`."""
        if not isinstance(arguments, dict):
            raise ToolArgumentError(
                f"arguments for tool {self.name!r} must be a JSON object, "
                f"got {type(arguments).__name__}"
            )
        try:
            model = self.arguments_model.model_validate(arguments)
        except pydantic.ValidationError as e:
            raise ToolArgumentError(_format_validation_error(self.name, e)) from e
        return {k: getattr(model, k) for k in type(model).model_fields}

    def __call__(self, arguments: dict[str, Any]) -> Any:
        """Validate the arguments and call the function."""
        return self.function(**self.validate(arguments))


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None) -> Any:
    """Decorator form of :meth:`Tool.from_function`: ``@tool`` or ``@tool(name="x")``."""
    if fn is None:
        return lambda f: Tool.from_function(f, name=name)
    return Tool.from_function(fn, name=name)


class ToolSet:
    """An ordered set of tools looked up by name."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any]] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.add(t)

    def add(self, t: Tool | Callable[..., Any]) -> Tool:
        """Add a tool (or a typed function, wrapped with :meth:`Tool.from_function`)."""
        built = t if isinstance(t, Tool) else Tool.from_function(t)
        self._tools[built.name] = built
        return built

    def get(self, name: str) -> Tool:
        """The tool named ``name``; :class:`ToolNotFound` lists the known tools otherwise."""
        try:
            return self._tools[name]
        except (KeyError, TypeError):
            known = ", ".join(self._tools) or "none"
            raise ToolNotFound(f"unknown tool {name!r}; available tools: {known}") from None

    def to_openai(self) -> list[dict[str, Any]]:
        """All tools as OpenAI ``tools`` entries."""
        return [t.to_openai() for t in self]

    def to_mcp(self) -> list[dict[str, Any]]:
        """All tools as MCP tool definitions."""
        return [t.to_mcp() for t in self]

    def names(self) -> list[str]:
        """Tool names in order."""
        return list(self._tools)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools
