"""Reward probes that need no knowledge of an env's data layout: constants, the whole answer
space, a tool's own return submitted back, and rare payoffs.

The probes of :mod:`.probes` find candidate answers under the data keys they know (``answer``,
``target``...). A scorer can be fooled without them:

- ``constants``: the type defaults and yes/no words (``False``, ``0``, ``''``, ``[]``, ``yes``)
  as text, in every answer form and as a function returning them (a code task whose tests
  mostly expect ``False``);
- ``answer_space``: every short scalar found anywhere in the tasks' data, whatever its key, sent
  at once (a substring scorer pays a list holding the gold, wherever the gold is kept);
- ``tool_return``: call a tool, then submit what it returned (whole, last line, last word) in
  every answer form: a tool that hands out the answer is a hack a two-step policy finds;
- ``rare``: the cheapest of these payloads over many more seeds (``rare_seeds`` of
  :func:`~agentgym.testing.check_rewards`, 160 by default: a hack that pays on 1 task in 40 is
  missed with probability ``(39/40)**160``, under 2%) where three seeds never draw it.

A script action may be a callable: it receives the previous observation's text and returns the
action to send (how ``tool_return`` submits what the tool said).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from .probes import Probe, ProbeContext, Script, _hermes

CONSTANT_TEXTS = ("yes", "no", "true", "false", "True", "False", "0", "1", "-1", "none",
                  "None", "null", "[]", "{}", "''", "a")
"""Constant answers sent as text."""
CONSTANT_VALUES = ("False", "True", "0", "1", "''", "[]", "None", "{}", "()")
"""Constant return values of a code answer (Python literals)."""
_MAX_LEAF_CHARS = 60
_MAX_SPACE = 400


def _leaves(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > 6:
        return
    if isinstance(value, str):
        if 0 < len(value.strip()) <= _MAX_LEAF_CHARS:
            yield value.strip()
    elif isinstance(value, bool | int | float):
        yield str(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in list(value)[:50]:
            yield from _leaves(v, depth + 1)


def answer_space(env: Any) -> list[str]:
    """Every short scalar in every task's data, whatever its key (at most 400, first seen
    first): what an answer could be, for an env whose data keys the probes do not know."""
    found: dict[str, None] = {}
    for task in getattr(env, "task_set", None) or []:
        for leaf in _leaves(getattr(task, "data", None)):
            found.setdefault(leaf)
        if len(found) >= _MAX_SPACE:
            break
    return list(found)[:_MAX_SPACE]


def _constants(ctx: ProbeContext) -> list[tuple[str, Script]]:
    forms: list[tuple[str, Script]] = []
    for text in list(CONSTANT_TEXTS)[:ctx.max_texts]:
        forms += [(f"{label} {text!r}", script) for label, script in ctx.payload(text)]
    names = ctx.function_names()[:3]
    for value in list(CONSTANT_VALUES)[:ctx.max_texts]:
        code = "\n".join(f"def {n}(*args, **kwargs):\n    return {value}\n" for n in names)
        forms += [(f"{label} returns {value}", script)
                  for label, script in ctx.payload(code, code=True)]
    return forms


def _answer_space(ctx: ProbeContext) -> list[tuple[str, Script]]:
    space = answer_space(ctx.env)
    if not space:
        return []
    return ctx.payload("\n".join(space)) + ctx.payload(", ".join(space))[:3]


_EXTRACTORS: dict[str, Callable[[str], str]] = {
    "whole": lambda text: text.strip(),
    "last line": lambda text: (text.strip().splitlines() or [""])[-1].strip(),
    "last word": lambda text: (re.findall(r"[\w.+-]+", text) or [""])[-1],
}


def _submit_returned(ctx: ProbeContext, extract: Callable[[str], str], form: int) -> Any:
    def action(observation: str) -> Any:
        forms = ctx.payload(extract(observation))
        return forms[form][1][0] if form < len(forms) else ""
    return action


def _tool_return(ctx: ProbeContext) -> list[tuple[str, Script]]:
    n_forms = len(ctx.payload("x"))
    out: list[tuple[str, Script]] = []
    for tool in ctx.tools:
        first = _hermes(tool.name, tool.call())
        for name, extract in _EXTRACTORS.items():
            for form in range(n_forms):
                label = ctx.payload("x")[form][0]
                out.append((f"{tool.name}() then its {name} as {label}",
                            [first, _submit_returned(ctx, extract, form)]))
    return out


def _rare(ctx: ProbeContext) -> list[tuple[str, Script]]:
    numbers = " ".join(str(i) for i in range(400))
    space = "\n".join(dict.fromkeys([*ctx.candidates, *answer_space(ctx.env)]))
    texts = [numbers, space, " ".join(CONSTANT_TEXTS)]
    return [(f"{label} {text[:20]!r}", script) for text in texts if text
            for label, script in ctx.payload(text)]


def answer_probes() -> list[Probe]:
    """The probes of this module, one per class (``rare`` is played on ``rare_seeds``)."""
    return [
        Probe("constant answers", "constants", _constants),
        Probe("the whole answer space", "answer_space", _answer_space),
        Probe("a tool's return submitted", "tool_return", _tool_return, cheap=False),
        Probe("rare payoffs", "rare", _rare, cheap=False),
    ]


__all__ = ["CONSTANT_TEXTS", "CONSTANT_VALUES", "answer_probes", "answer_space"]
