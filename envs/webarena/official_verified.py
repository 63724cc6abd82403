"""WebArena-Verified's ``AgentResponseEvaluator`` for the value types it can compare here.

A WebArena-Verified task's ``eval`` is a list of checks. The agent ends with a JSON answer
(:data:`RESPONSE_FORMAT`): the task type, a status, and for retrieval tasks the data. Written
after the ``webarena-verified`` package's evaluator (read, not imported: its pinned libraries
would downgrade pydantic), the answer scores 1 when:

- ``task_type`` and ``status`` equal the expected ones (case-insensitive; ``performed_operation``
  is accepted for ``task_type``, as there);
- for a retrieval task, ``retrieved_data`` (a value is a one-item list) matches the expected list
  element for element in any order (in order where ``ordered``), each value compared by its
  schema: strings normalised (trademark signs dropped, NFKC, accents folded, whitespace
  collapsed, casefolded; a ``^...$`` reference is a pattern; a list of references gives
  alternatives; quotes and end punctuation are retried without), numbers and currency as
  floats (``$1,234.50``), booleans (``yes``/``no``, ``true``/``false``...), objects property by
  property.

String formats that need the package's parsers (``date``, ``duration``, ``distance``,
``location-name``, ``coordinates``, ``url``, ``month``...) and the ``NetworkEventEvaluator``
(which reads the episode's network log) are not implemented: such a task fails closed (score 0,
an error naming what is missing).

The env scores with the package itself (:func:`package_score`: its worker, fed the answer and
the episode's network log, :mod:`.netlog`) whenever ``make setup-webarena-verified`` has set it
up; the hand-written comparison above is the fallback without it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .official_helpers import EvalSpecError

RESPONSE_FORMAT = (
    'Finish with stop [JSON]: {"task_type": "RETRIEVE" | "MUTATE" | "NAVIGATE", "status": '
    '"SUCCESS" | "NOT_FOUND_ERROR" | "ACTION_NOT_ALLOWED_ERROR" | "PERMISSION_DENIED_ERROR" | '
    '"DATA_VALIDATION_ERROR" | "UNKNOWN_ERROR", "retrieved_data": [the values asked for] or '
    "null}.")
"""What the agent is told about its final answer on a WebArena-Verified task."""
TRUE = ("true", "yes", "y", "1", "t", "on")
FALSE = ("false", "no", "n", "0", "f", "off")
_MARKS = re.compile("[\u2122\u00ae\u2120\u00a9]")
_EDGE = "'\"`.,;:!?"


def parse_response(answer: str | None) -> dict[str, Any] | None:
    """The JSON object of the answer (inside a code fence or bare), or None."""
    text = (answer or "").strip()
    fence = re.search(r"```(?:json)?\s*\n?(.*?)\n?```", text, re.DOTALL)
    if fence:
        text = fence.group(1).strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def norm(text: Any) -> str:
    """A string as WebArena-Verified normalises it for comparison."""
    text = unicodedata.normalize("NFKC", _MARKS.sub("", str(text)))
    text = "".join(c for c in unicodedata.normalize("NFKD", text)
                   if not unicodedata.combining(c))
    return " ".join(text.split()).casefold()


def _is_pattern(text: str) -> bool:
    return len(text) > 1 and text.startswith("^") and text.endswith("$")


def string_eq(expected: Any, actual: Any) -> bool:
    """Normalised equality with alternatives, patterns and edge punctuation retried."""
    wants = expected if isinstance(expected, list) else [expected]
    got = norm(actual)
    for want in wants:
        if isinstance(want, str) and _is_pattern(want):
            if re.fullmatch(want, got, re.IGNORECASE):
                return True
            continue
        if norm(want) == got or norm(want).strip(_EDGE) == got.strip(_EDGE):
            return True
    return False


def number(value: Any) -> float:
    """A number or currency amount as a float (``ValueError`` when it is none)."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, (int, float)):
        return float(value)
    return float(re.sub(r"[\s,$€£]", "", str(value)))


def value_eq(schema: dict[str, Any], expected: Any, actual: Any) -> bool:
    """``actual`` equals ``expected`` as the schema types them."""
    kind, fmt = schema.get("type"), schema.get("format")
    if expected is None:  # a property the reference leaves empty
        return actual is None or actual == "" or actual == []
    if isinstance(expected, list) and kind != "array":  # alternatives
        return any(value_eq(schema, e, actual) for e in expected)
    if kind == "object":
        props = schema.get("properties") or {}
        return isinstance(actual, dict) and isinstance(expected, dict) and all(
            value_eq(props.get(k, {"type": "string"}), v, actual.get(k))
            for k, v in expected.items())
    if fmt not in (None, "currency"):
        raise EvalSpecError(f"WebArena-Verified value format {fmt!r} is not implemented here")
    if kind in ("number", "integer"):
        try:
            return number(actual) == number(expected)
        except ValueError:
            return False
    if kind == "boolean":
        want = str(expected).strip().lower() in TRUE
        got = str(actual).strip().lower()
        return got in (TRUE if want else FALSE)
    if kind in ("string", None):
        return actual is not None and string_eq(expected, actual)
    raise EvalSpecError(f"WebArena-Verified value type {kind!r} is not implemented here")


def data_matches(schema: dict[str, Any], expected: list[Any], actual: Any,
                 ordered: bool) -> bool:
    """The retrieved values against the expected ones (a multiset unless ``ordered``)."""
    items = schema.get("items") or {"type": "string"}
    if isinstance(actual, str):
        try:
            parsed = json.loads(actual)
            actual = parsed if isinstance(parsed, list) else actual
        except json.JSONDecodeError:
            pass
    got = list(actual) if isinstance(actual, (list, tuple)) else [actual]
    if len(got) != len(expected):
        return False
    if ordered:
        return all(value_eq(items, e, a) for e, a in zip(expected, got, strict=True))
    free = list(range(len(got)))
    for want in expected:
        hit = next((i for i in free if value_eq(items, want, got[i])), None)
        if hit is None:
            return False
        free.remove(hit)
    return True


def check_schema(schema: dict[str, Any]) -> None:
    """Raise :class:`EvalSpecError` when the schema has a type or format not compared here."""
    kind, fmt = schema.get("type"), schema.get("format")
    if fmt not in (None, "currency"):
        raise EvalSpecError(f"WebArena-Verified value format {fmt!r} is not implemented here")
    if kind not in (None, "null", "string", "number", "integer", "boolean", "array", "object"):
        raise EvalSpecError(f"WebArena-Verified value type {kind!r} is not implemented here")
    for sub in [schema.get("items") or {}, *(schema.get("properties") or {}).values()]:
        if sub:
            check_schema(sub)


def response_score(check: dict[str, Any], answer: str | None) -> float:
    """The ``AgentResponseEvaluator`` check against the agent's final answer."""
    expected = check.get("expected") or {}
    response = parse_response(answer)
    if response is None:
        return 0.0
    task_type = response.get("task_type", response.get("performed_operation"))
    if norm(task_type or "") != norm(expected.get("task_type", "")):
        return 0.0
    if norm(response.get("status") or "") != norm(expected.get("status", "")):
        return 0.0
    if norm(expected.get("task_type", "")) != "retrieve":
        return 1.0
    want, got = expected.get("retrieved_data"), response.get("retrieved_data")
    if want:
        check_schema(check.get("results_schema") or {})
    if not want and not isinstance(want, (int, float, bool)):
        return float(not got and not isinstance(got, (int, float, bool)))
    if got is None or got == "" or got == []:
        return 0.0
    return float(data_matches(check.get("results_schema") or {}, list(want), got,
                              bool(check.get("ordered"))))


def verified_score(checks: list[Any], answer: str | None) -> float:
    """Every check of a WebArena-Verified task; an unimplemented one fails closed."""
    missing = sorted({str(c.get("evaluator")) for c in checks if isinstance(c, dict)
                      and c.get("evaluator") != "AgentResponseEvaluator"})
    if missing or not checks:
        raise EvalSpecError(f"WebArena-Verified's {', '.join(missing) or 'checks'} not "
                            f"implemented here (the episode's network log is not recorded)")
    score = 1.0
    for check in checks:
        score *= response_score(check, answer)
    return score


async def package_score(config: dict[str, Any], answer: str | None,
                        network_log: list[dict[str, Any]],
                        site_urls: dict[str, str]) -> tuple[float, dict[str, Any]]:
    """The ``webarena-verified`` package's own verdict (its worker, :mod:`.verified_client`)
    on the answer and the episode's network log: the score and what goes into ``info``.

    Raises :class:`~.verified_client.VerifiedEvaluatorMissing` when its environment is not set
    up and :class:`~.verified_client.VerifiedWorkerError` (infrastructure) when the worker fails.
    """
    import asyncio

    from .verified_client import scorer

    environments = {s: site_urls[s] for s in config.get("sites", ()) if s in site_urls}
    reply = await asyncio.to_thread(scorer().score, int(config["task_id"]), answer,
                                    network_log, environments)
    parts = {p["name"] + (f"[{i}]" if i else ""): p["score"]
             for i, p in enumerate(reply.get("evaluators") or [])}
    info: dict[str, Any] = {"eval": parts, "eval_notes": [
        f"{p['name']}: {m}" for p in reply.get("evaluators") or [] for m in p["messages"]]}
    if not reply.get("ok") or reply.get("status") == "error":
        info["eval_error"] = str(reply.get("error") or "the package could not evaluate")[:500]
        return 0.0, info
    return float(reply["score"]), info
