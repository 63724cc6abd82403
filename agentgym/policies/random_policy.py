"""A random policy: random text, or random tool calls built from the tools' JSON schemas.

It is the floor of every eval (near 0% success) and a fuzzer for envs. Draws are seeded by the
episode's sampling seed, so a run repeats exactly.
"""

from __future__ import annotations

import json
import random
import string
from typing import Any

from .base import EpisodeContext, Generation, Policy, SamplingParams, derive_seed

_WORDS = "the a select from where count name id value table answer yes no 1 2 3 42 foo".split()


def random_value(schema: dict[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value that fits ``schema`` (types, enums; nested up to depth 2)."""
    if "enum" in schema:
        return rng.choice(schema["enum"])
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return random_value(rng.choice(options), rng, depth)
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind == "integer":
        return rng.randint(int(schema.get("minimum", -5)), int(schema.get("maximum", 100)))
    if kind == "number":
        return round(rng.uniform(-10, 100), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        count = rng.randint(0, 2 if depth < 2 else 0)
        return [random_value(items, rng, depth + 1) for _ in range(count)]
    if kind == "object":
        props = schema.get("properties", {}) if depth < 2 else {}
        return {k: random_value(v, rng, depth + 1) for k, v in props.items()}
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6)))


class RandomPolicy(Policy):
    """With probability ``tool_prob`` a random call of a random tool, else random words."""

    name = "random"

    def __init__(self, tool_prob: float = 0.9, seed: int = 0) -> None:
        super().__init__()
        self.tool_prob = tool_prob
        self.seed = seed

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> RandomPolicy:
        """``random?tool_prob=0.9&seed=0``."""
        return cls(**options)

    async def agenerate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams,
        prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """One random turn."""
        rng = random.Random(derive_seed(self.seed, sampling.seed, len(messages)))
        if tools and rng.random() < self.tool_prob:
            fn = rng.choice(tools).get("function", {})
            args = random_value(fn.get("parameters", {"type": "object"}), rng)
            body = json.dumps({"name": fn.get("name", ""), "arguments": args})
            text = f"<tool_call>{body}</tool_call>"
        else:
            n = rng.randint(1, 12)
            text = " ".join(
                rng.choice(_WORDS) if rng.random() < 0.7 else
                "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(1, 8)))
                for _ in range(n)
            )
        return Generation(text=text, finish_reason="stop", policy_version=self.version)


__all__ = ["RandomPolicy", "random_value"]
