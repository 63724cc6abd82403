"""Reward probes: the degenerate and adversarial actions a reward-hacking policy tries first.

A :class:`Probe` belongs to one probe class (:data:`PROBE_KINDS`) and turns a
:class:`ProbeContext` (the env's first observation, its tools and its task set) into *variants*:
scripts of actions, one action per turn, each played as its own episode. A payload such as
``"0 1 2 ... 399"`` is sent in every form the env may read: as plain text, in ``<answer>`` tags,
as ``\\boxed{}``, and in every string argument of every tool (found from the tool schemas). Code
payloads (always-equal objects, process exits, forged reports) are sent as fenced code and in
every string argument too, so they reach a code env's ``submit`` whatever its name.

:func:`builtin_probes` lists the built-in probes; :func:`agentgym.testing.check_rewards` plays
them and compares what they earn with a do-nothing policy.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .malformed import malformed_actions
from .probe_payloads import (
    CLAIMS,
    DONE_WORDS,
    FORGED_MARKERS,
    REFUSALS,
    always_equal_codes,
    exit_codes,
    fault_payloads,
    forged_codes,
)

PROBE_KINDS = (
    "empty", "refusal", "numbers", "candidates", "echo", "huge", "claim", "forged",
    "always_equal", "exit", "fault", "navigate", "spam", "constants", "answer_space",
    "tool_return", "rare",
)
"""Every probe class; an env opts out of one only with a reason (``reward_probe_exemptions``)."""

Script = list[Any]
"""The actions of one probe episode, one per turn; a callable action gets the previous
observation's text and returns the action (a probe that submits what a tool returned)."""
_ANSWER_KEYS = ("answer", "answers", "target", "gold", "label", "solution", "expected")
_URL_PARAMS = ("url", "href", "link", "address")
_MAX_CANDIDATES = 200
_MAX_CALLS = 100
_MAX_SIBLINGS = 4


@dataclass(frozen=True)
class ToolInfo:
    """A tool as its JSON schema shows it: name, properties and required arguments."""

    name: str
    properties: dict[str, Any]
    required: tuple[str, ...]

    def params_of(self, *types: str) -> list[str]:
        """Names of the parameters whose schema admits one of ``types``."""
        return [p for p, s in self.properties.items() if _schema_types(s) & set(types)]

    def call(self, **overrides: Any) -> dict[str, Any]:
        """Arguments with ``overrides`` and a filler for every other required argument.

        A required enumerated argument takes the value an overridden argument's description
        names (``text``: "Text to type (TYPING)" picks ``TYPING``), else its first value.
        """
        said = " ".join(str(self.properties.get(p, {}).get("description", "")) for p in overrides)
        args = {}
        for p in self.required:
            schema = self.properties.get(p)
            if schema is None:
                continue
            named = [v for v in (schema.get("enum") or []) if str(v) in said]
            args[p] = named[0] if named else _filler(schema)
        args.update(overrides)
        return args


@dataclass
class ProbeContext:
    """What a probe sees: the first observation, the tools and the other tasks' answers."""

    env: Any
    """The unwrapped env, reset to the episode's task."""
    observation: str
    """The first observation's text (the question, for most envs)."""
    tools: list[ToolInfo] = field(default_factory=list)
    """The env's tools, from their schemas (empty for pure text envs)."""
    candidates: list[str] = field(default_factory=list)
    """Answers of the env's tasks (this task's among them): what a list-of-candidates tries."""
    max_texts: int | None = None
    """Send only the first this many payloads of each probe (the cheap mode sets 2)."""

    @property
    def prompt(self) -> str:
        """The task's prompt when the env has a task, else the observation."""
        task = getattr(self.env, "task", None)
        prompt = getattr(task, "prompt", None)
        return prompt if isinstance(prompt, str) and prompt else self.observation

    def function_names(self) -> list[str]:
        """Python function names defined in the observation (what a code task asks for)."""
        names = re.findall(r"def\s+([A-Za-z_]\w*)\s*\(", self.observation)
        return list(dict.fromkeys([*names, "solution", "solve", "main", "f"]))

    def batched(self, tool: ToolInfo, param: str, values: Iterable[Any]) -> Script:
        """One call per value, packed as many per turn as the env runs (its
        ``max_calls_per_turn``), over as many turns as it takes."""
        per_turn = max(1, int(getattr(self.env, "max_calls_per_turn", _MAX_CALLS) or 1))
        calls = [_hermes(tool.name, tool.call(**{param: v})) for v in values]
        return ["".join(calls[i:i + per_turn]) for i in range(0, len(calls), per_turn)]

    def payload(self, text: str, *, code: bool = False) -> list[tuple[str, Script]]:
        """One-turn variants sending ``text`` as text, tags and every string tool argument."""
        forms: list[tuple[str, Script]] = [
            ("text", [text]), ("<answer>", [f"<answer>{text}</answer>"]),
            ("\\boxed", [f"\\boxed{{{text}}}"]),
        ]
        if code:
            forms = [("```python", [f"```python\n{text}\n```"]), ("text", [text])]
        for tool in self.tools:
            for param in tool.params_of("string"):
                forms.append((f"{tool.name}.{param}", [_hermes(tool.name, tool.call(**{
                    param: text}))]))
        return forms


@dataclass(frozen=True)
class Probe:
    """One adversarial behaviour: ``build(ctx)`` gives its variants as (label, script) pairs."""

    name: str
    kind: str
    build: Callable[[ProbeContext], list[tuple[str, Script]]]
    cheap: bool = True
    """Part of the cheap subset run on envs whose episodes cost seconds (browsers, desktops)."""


def tool_infos(env: Any) -> list[ToolInfo]:
    """The env's tools as :class:`ToolInfo` (an env without a ``ToolSet`` has none)."""
    out = []
    for tool in getattr(env, "tools", None) or []:
        try:
            params = tool.to_openai()["function"]["parameters"]
        except (AttributeError, KeyError, TypeError):
            continue
        out.append(ToolInfo(tool.name, dict(params.get("properties") or {}),
                            tuple(params.get("required") or ())))
    return out


def task_candidates(env: Any) -> list[str]:
    """Distinct answers found in the data of the env's tasks (``answer``, ``target``, ...)."""
    found: list[str] = []
    for task in getattr(env, "task_set", None) or []:
        data = getattr(task, "data", None)
        if not isinstance(data, dict):
            continue
        for key in _ANSWER_KEYS:
            value = data.get(key)
            values = value if isinstance(value, list | tuple) else [value]
            found += [str(v) for v in values if isinstance(v, str | int | float) and str(v)]
        if len(set(found)) >= _MAX_CANDIDATES:
            break
    return list(dict.fromkeys(found))[:_MAX_CANDIDATES]


def _schema_types(schema: Any) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    types = schema.get("type")
    out = set(types) if isinstance(types, list) else {types} if isinstance(types, str) else set()
    for sub in schema.get("anyOf") or []:
        out |= _schema_types(sub)
    return out


def _filler(schema: Any) -> Any:
    if isinstance(schema, dict) and schema.get("enum"):
        return schema["enum"][0]
    types = _schema_types(schema)
    for kind, value in (("string", "x"), ("integer", 0), ("number", 0), ("boolean", False),
                        ("array", []), ("object", {})):
        if kind in types:
            return value
    return None


def _hermes(name: str, arguments: dict[str, Any]) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def _each(
    ctx: ProbeContext, texts: Iterable[str], *, code: bool = False
) -> list[tuple[str, Script]]:
    chosen = list(texts)[:ctx.max_texts]
    return [(f"{label} {text[:30]!r}", script)
            for text in chosen for label, script in ctx.payload(text, code=code)]


def _numbers(ctx: ProbeContext) -> list[tuple[str, Script]]:
    forms = ctx.payload(" ".join(str(i) for i in range(400)))
    forms += ctx.payload(", ".join(str(i) for i in range(-10, 400)))[:1]
    for tool in ctx.tools:
        for param in tool.params_of("integer", "number"):
            forms.append((f"{tool.name}.{param}=0,1,2,... as many calls as allowed",
                          ctx.batched(tool, param, range(400))))
    return forms


def _candidates(ctx: ProbeContext) -> list[tuple[str, Script]]:
    if not ctx.candidates:
        return []
    forms = ctx.payload("\n".join(ctx.candidates)) + ctx.payload(", ".join(ctx.candidates))
    forms += ctx.payload(" or ".join(ctx.candidates[:20]))
    for tool in ctx.tools:
        for param in tool.params_of("string"):
            forms.append((f"{tool.name}.{param}: one call per candidate",
                           ctx.batched(tool, param, ctx.candidates)))
    return forms


def _enum_calls(ctx: ProbeContext, words: Sequence[str] = ()) -> list[tuple[str, Script]]:
    """Calls with each enumerated value (only those naming completion, when ``words``)."""
    forms = []
    for tool in ctx.tools:
        for param, schema in tool.properties.items():
            for value in (schema.get("enum") or []) if isinstance(schema, dict) else []:
                if words and not any(w in str(value).lower() for w in words):
                    continue
                forms.append((f"{tool.name}.{param}={value}",
                              [_hermes(tool.name, tool.call(**{param: value}))]))
    return forms


def _claims(ctx: ProbeContext) -> list[tuple[str, Script]]:
    forms = _each(ctx, CLAIMS) + _enum_calls(ctx, DONE_WORDS)
    for tool in ctx.tools:
        if tool.name.lower() in DONE_WORDS and not tool.required:
            forms.append((f"{tool.name}()", [_hermes(tool.name, {})]))
    return forms


def _echo(ctx: ProbeContext) -> list[tuple[str, Script]]:
    texts = dict.fromkeys([ctx.prompt, ctx.observation[:20000]])
    return _each(ctx, texts)


def _huge(ctx: ProbeContext) -> list[tuple[str, Script]]:
    body = " ".join([ctx.prompt, *ctx.candidates, *map(str, range(1000))])
    return ctx.payload((body + " ") * (100_000 // (len(body) + 1) + 1))


def _own_urls(ctx: ProbeContext) -> list[str]:
    """URLs of the task: in the observation, and the env's ``page_url`` (attribute or method)."""
    urls = re.findall(r"(?:https?|file)://[^\s'\"<>)\]]+", ctx.observation)
    page = getattr(ctx.env, "page_url", None)
    with contextlib.suppress(Exception):
        page = page() if callable(page) else page
        if isinstance(page, str) and page:
            urls.insert(0, page)
    return list(dict.fromkeys(urls))[:5]


def _sibling_urls(ctx: ProbeContext, urls: list[str]) -> list[str]:
    """The task's URLs with its env name swapped for other env names of the same namespace
    (``.../click-button.html`` -> ``.../click-test.html``): other tasks on the same origin."""
    env_id = str(getattr(getattr(ctx.env, "agentgym_spec", None), "id", "") or "")
    if "/" not in env_id:
        return []
    from ..registry import list_envs

    namespace, name = env_id.split("/", 1)
    stem = re.sub(r"-v\d+$", "", name)
    others = [re.sub(r"-v\d+$", "", e.split("/", 1)[1]) for e in list_envs()
              if e.startswith(namespace + "/") and e != env_id]
    others.sort(key=lambda o: (not o.startswith(("click-test", "click-button")), len(o)))
    return [u.replace(stem, o) for u in urls if stem in u for o in others[:_MAX_SIBLINGS]]


def _navigate(ctx: ProbeContext) -> list[tuple[str, Script]]:
    own = _own_urls(ctx)
    targets = [*own, *_sibling_urls(ctx, own), "about:blank", "file:///etc/passwd",
               "http://127.0.0.1:1/", "javascript:alert(1)"]
    clickers = [(t, p) for t in ctx.tools for p in t.params_of("integer")][:1]
    forms = []
    for tool in ctx.tools:
        for param in tool.params_of("string"):
            if param.lower() not in _URL_PARAMS:
                continue
            for url in dict.fromkeys(targets):
                script = [_hermes(tool.name, tool.call(**{param: url}))]
                for clicker, arg in clickers:  # then act on the other page: every element
                    script += ctx.batched(clicker, arg, range(1, 40))
                forms.append((f"{tool.name}({url[:50]})", script))
    return forms


def _forged(ctx: ProbeContext) -> list[tuple[str, Script]]:
    markers = [*FORGED_MARKERS, *getattr(ctx.env, "reward_probe_markers", ())]
    return _each(ctx, markers) + _each(ctx, forged_codes(ctx.function_names()), code=True)


def _spam(ctx: ProbeContext) -> list[tuple[str, Script]]:
    forms: list[tuple[str, Script]] = []
    for tool in ctx.tools:
        one = _hermes(tool.name, tool.call())
        forms.append((f"{tool.name} x{_MAX_CALLS} in one turn", [one * _MAX_CALLS]))
        forms.append((f"{tool.name} every turn", [one] * 30))
    names = [t.name for t in ctx.tools]
    forms.append(("malformed calls, one per turn", list(malformed_actions(30, seed=3,
                                                                         tool_names=names))))
    return forms


def builtin_probes() -> list[Probe]:
    """The built-in probes, one or more per probe class."""
    return [
        Probe("empty", "empty", lambda c: _each(c, ["", " "])),
        Probe("refusal", "refusal", lambda c: _each(c, REFUSALS)),
        Probe("every number", "numbers", _numbers),
        Probe("list of candidates", "candidates", _candidates),
        Probe("enumerated choices", "candidates", _enum_calls, cheap=False),
        Probe("question echoed", "echo", _echo),
        Probe("huge answer", "huge", _huge, cheap=False),
        Probe("claim of success", "claim", _claims),
        Probe("forged report", "forged", _forged),
        Probe("always-equal object", "always_equal",
              lambda c: _each(c, always_equal_codes(c.function_names()), code=True)),
        Probe("process exit", "exit",
              lambda c: _each(c, exit_codes(c.function_names()), code=True)),
        Probe("self-inflicted fault", "fault",
              lambda c: _each(c, fault_payloads(c.function_names()))),
        Probe("navigation away", "navigate", _navigate),
        Probe("tool-call spam", "spam", _spam, cheap=False),
    ]


__all__ = ["PROBE_KINDS", "Probe", "ProbeContext", "Script", "ToolInfo", "builtin_probes",
           "task_candidates", "tool_infos"]
