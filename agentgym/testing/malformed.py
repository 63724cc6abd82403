"""Generate malformed actions and tool calls: what a badly trained model emits."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from typing import Any

from ..toolcalls import ToolCall

_GARBAGE = [
    "", " ", "\n\n", "\x00", "}{", "<tool_call>", "</tool_call>", "<tool_call>{</tool_call>",
    "Action:", "Action: ", "Action: [", "Action Input: {", "```", "null", "[]", "{}", "{\"name\":",
    "<answer>", "</answer>", "<sql>", "DROP TABLE", "\ufffd" * 10, "🙂" * 50, "a" * 20000,
]


_DEEP = 100_000
"""Nesting far past Python's recursion limit: a model can emit ``[[[[...`` of any length."""


def _nested(name: str) -> list[Any]:
    """Tool calls whose JSON nests ``_DEEP`` levels, in each format a parser reads."""
    array = "[" * _DEEP + "]" * _DEEP
    obj = '{"a":' * _DEEP + "0" + "}" * _DEEP
    return [
        f'<tool_call>{{"name": "{name}", "arguments": {{"x": {array}}}}}</tool_call>',
        f'{{"name": "{name}", "arguments": {obj}}}',
        f"Action: {name}\nAction Input: {array}",
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": name, "arguments": array}}]},
    ]


def _random_text(rng: random.Random, n: int) -> str:
    alphabet = "abcxyz <>/{}[]():,\"'\\\n\t0123456789_-=;" + "\u00e9\u4e2d\U0001f600"
    return "".join(rng.choice(alphabet) for _ in range(n))


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(8 if depth < 3 else 5)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 2**63, 1e308, float("1e-9"), 3.5])
    if choice == 3:
        return _random_text(rng, rng.randrange(0, 40))
    if choice == 4:
        return rng.choice(["", "x" * 5000, "'; DROP TABLE t; --", "../../etc/passwd"])
    if choice == 5:
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {_random_text(rng, 5): _random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def malformed_actions(
    n: int = 1000, *, seed: int = 0, tool_names: Sequence[str] = ()
) -> Iterator[Any]:
    """Yield ``n`` malformed actions: calls nested past the recursion limit (first), garbage
    text, broken JSON, unknown tools, bad arguments, wrong types and OpenAI messages with bad
    fields. Deterministic for a seed."""
    rng = random.Random(seed)
    names = [*tool_names, "no_such_tool", "", "__import__", "a" * 300]
    nested = _nested(tool_names[0] if tool_names else "move")
    yield from nested[:n]
    for i in range(n - len(nested)):
        name = rng.choice(names)
        args = _random_json(rng)
        kind = i % 12
        if kind == 0:
            yield rng.choice(_GARBAGE)
        elif kind == 1:
            yield _random_text(rng, rng.randrange(1, 300))
        elif kind == 2:
            body = json.dumps({"name": name, "arguments": args}, default=str)
            cut = rng.randrange(len(body) + 1)
            yield f"<tool_call>{body[:cut]}</tool_call>"
        elif kind == 3:
            yield f"<tool_call>{json.dumps({'name': name, 'arguments': args}, default=str)}"
        elif kind == 4:
            yield f"Action: {name}\nAction Input: {json.dumps(args, default=str)[:200]}"
        elif kind == 5:
            yield f"Action: {name}[{_random_text(rng, 20)}"
        elif kind == 6:
            arguments = json.dumps(args, default=str) if rng.random() < 0.5 else args
            yield {"role": "assistant", "content": None, "tool_calls": [
                {"id": "x", "type": "function", "function": {"name": name, "arguments": arguments}}
            ]}
        elif kind == 7:
            yield {"tool_calls": rng.choice([None, "x", 5, [1, 2], [{"function": 3}], [{}]])}
        elif kind == 8:
            yield rng.choice([None, 0, 3.14, b"bytes", object(), ["a", "b"], {"content": 5}])
        elif kind == 9:
            yield [ToolCall(name, args if isinstance(args, dict) else {"x": args})]
        elif kind == 10:
            calls = "".join(
                f"<tool_call>{json.dumps({'name': rng.choice(names), 'arguments': {}})}</tool_call>"
                for _ in range(rng.randrange(2, 30))
            )
            yield calls
        else:
            yield f"```json\n{{\"name\": \"{name}\", \"arguments\": {_random_text(rng, 30)}}}\n```"
