"""WebArena's evaluators over a task's ``eval`` block: the official semantics, and strict mode.

``evaluate(..., mode="strict")`` (the default, for training) replaces the two checks a constant
can pass, ``url_match`` and ``must_include`` on the answer, by an exact normalised URL match and
a bounded answer (:mod:`.strict`); ``mode="official"`` keeps WebArena's semantics below, for
numbers comparable with published ones.

Written after WebArena-Lite's ``evaluators.py`` (VisualAgentBench, shipped in the
``browsergym-webarenalite`` package); the original WebArena's are the same for every key its
812 tasks use. ``eval_types`` picks the evaluators and the task's score is their product
(``EvaluatorComb``):

- ``string_match`` on the final answer (cleaned: stripped, one pair of outer quotes removed,
  lowercased): ``exact_match`` (a string), ``must_include`` (a list; every item must occur),
  ``fuzzy_match`` (a list judged item by item, or ``"N/A"``: the answer is exactly ``N/A``, else a
  judge compares its reason with the task's ``string_note``).
- ``url_match``: ``url_note`` ``"GOLD in PRED"`` (the only rule WebArena defines): some gold
  host+path (``|OR|`` alternatives) occurs in the final one, and for every gold query key one of
  its gold values is in the final URL's.
- ``program_html``: for each item, open ``url`` (``"last"``: the final page; ``func:``: a helper
  of :mod:`.official_helpers`), select with ``locator`` (``""``: the page HTML; ``document.`` or
  ``[...document.`` JavaScript after the item's ``prep_actions``; ``lambda:``; ``func:``) and check
  ``required_contents``: ``exact_match``, ``must_include`` (``|OR|`` alternatives) or
  ``fuzzy_match`` (through the judge).

A WebArena-Verified task's ``eval`` (a list of checks) goes to :mod:`.official_verified`.

Deviations, each of which can only lower a score: a reference that is a number matches only a
whole number of the answer (``"2"`` is not in ``"12"``; WebArena does this for one-character
references only), an answer whose numbers are not all in the references or the intent scores 0
(a list of candidates), a negative number is not its absolute value (``-1`` does not hold a
``1``), an answer that is code scores 0 when a reference is a number
(:mod:`.answer_code`: ``sys.exit(0)`` and ``return 0`` hold a ``0`` by accident), a final
URL that repeats a gold query key with values the gold does not name scores 0
(``?sort=a&sort=b``), and every key, type, locator or helper this module does not implement
makes the result an error with score 0 (WebArena skips some unknown keys).
``|OR|`` splits ``must_include`` items of answers as it does those of pages (official task 94),
and a ``must_include`` given as one string is one reference (official task 81; WebArena's
assertion fails there, an older harness checked the string letter by letter).
"""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from agentgym.errors import is_infrastructure_error

from .answer_code import code_in
from .judges import Judge, NormalizedJudge
from .official_helpers import EvalSpecError, SiteHelpers, parse_call
from .official_verified import verified_score
from .strict import check_mode, strict_url_score, unbounded

logger = logging.getLogger(__name__)

OR = " |OR| "
EVAL_KEYS = frozenset({"eval_types", "reference_answers", "reference_url", "program_html",
                       "string_note", "url_note", "reference_answer_raw_annotation",
                       "annotation_note"})
"""Keys of an ``eval`` block; any other is an error."""
ANSWER_KINDS = frozenset({"exact_match", "must_include", "fuzzy_match"})
CONTENT_KINDS = frozenset({"exact_match", "must_include", "fuzzy_match"})
PAGE_ITEM_KEYS = frozenset({"url", "locator", "required_contents", "prep_actions"})


class PageProbe(Protocol):
    """What the URL and HTML evaluators need from the browser."""

    async def current_url(self) -> str:
        """URL of the agent's active tab at the end of the episode."""
        ...

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        """Open ``url`` (``"last"``: stay on the final page), run ``prep`` (errors ignored),
        then return the page HTML (``script`` empty) or the value of the JavaScript function
        ``script`` as text (``None`` when it threw or returned nothing)."""
        ...


@dataclass
class EvalResult:
    """A task's score, what each evaluator said, and the error that failed it closed."""

    score: float
    parts: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None


def clean_answer(answer: str) -> str:
    """WebArena's answer cleaning: strip, remove one pair of outer quotes, lowercase."""
    answer = answer.strip()
    if len(answer) >= 2 and answer[0] == answer[-1] and answer[0] in "'\"":
        answer = answer[1:-1]
    return answer.lower()


_NUMBER = re.compile(r"(?<![\w.])(?<!(?<!\w)-)\d+(?:,\d{3})*(?:\.\d+)?(?![\w]|\.\d|,\d)")
_NUMERIC_REF = re.compile(r"^[$€£]?\s*\d+(?:,\d{3})*(?:\.\d+)?\s*%?$")
_TOKEN = re.compile(r"\w+|[^\w\s]")


def canonical_number(text: str) -> str:
    """``"1,234.50"`` -> ``"1234.5"``: thousands separators and trailing decimal zeros gone."""
    text = text.replace(",", "")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def numbers_in(text: str) -> set[str]:
    """The whole numbers of ``text``, canonical (``"2"`` is not found in ``"12"``)."""
    return {canonical_number(m) for m in _NUMBER.findall(text.replace("\u00a0", " "))}


def exact_match(ref: str, pred: str) -> float:
    """1 when the cleaned strings are equal."""
    return float(clean_answer(pred) == clean_answer(ref))


def must_include(ref: str, pred: str, tokenize: bool = False) -> float:
    """1 when any ``|OR|`` alternative of ``ref`` occurs in the cleaned prediction: a number as
    a whole number, a one-character reference as a token when ``tokenize``, else a substring."""
    cleaned = clean_answer(pred)
    for alt in ref.split(OR):
        want = clean_answer(alt)
        if _NUMERIC_REF.match(want):
            digits = _NUMBER.search(want)
            if digits and canonical_number(digits.group()) in numbers_in(cleaned):
                return 1.0
        elif tokenize and len(want) == 1:
            if want in _TOKEN.findall(cleaned):
                return 1.0
        elif want and want in cleaned:
            return 1.0
    return 0.0


def _texts(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value or ()]


def numeric_references(refs: Any) -> set[str]:
    """The canonical numbers of the references that are numbers (``"2"``, ``"$9.99"``, each
    ``|OR|`` alternative of ``"65 |OR| 3"``); empty when no reference is one."""
    found: set[str] = set()
    for value in refs.values() if isinstance(refs, dict) else ():
        for text in _texts(value):
            for alt in text.split(OR):
                want = clean_answer(alt)
                if _NUMERIC_REF.match(want):
                    found |= numbers_in(want)
    return found


_SCALE = re.compile(r"(?:\bout of|/)\s*\d+(?:\.\d+)?")


def hedged_numbers(refs: dict[str, Any], pred: str, intent: str) -> set[str]:
    """Numbers of the answer that are neither in the references nor in the intent (a list of
    candidates); empty when the references hold no number. A scale (``out of 5``, ``/5``) is
    not a claim."""
    wanted: set[str] = set()
    for value in refs.values():
        for text in _texts(value):
            wanted |= numbers_in(text)
    if not wanted:
        return set()
    return numbers_in(_SCALE.sub(" ", pred)) - wanted - numbers_in(intent)


async def string_score(spec: dict[str, Any], pred: str, intent: str, judge: Judge,
                       notes: list[str], mode: str = "strict") -> float:
    """The ``string_match`` score of ``pred`` against ``spec["reference_answers"]`` (``mode``
    ``strict``: a ``must_include`` answer is bounded, :func:`.strict.unbounded`)."""
    refs = spec.get("reference_answers")
    if not isinstance(refs, dict) or not refs:
        raise EvalSpecError("string_match needs a non-empty reference_answers mapping")
    unknown = set(refs) - ANSWER_KINDS
    if unknown:
        raise EvalSpecError(f"reference answer kind(s) not implemented: {sorted(unknown)}")
    hedged = hedged_numbers(refs, pred, intent)
    if hedged:
        notes.append(f"the answer names numbers that are not the answer: {sorted(hedged)[:10]}")
        return 0.0
    code = code_in(pred) if numeric_references(refs) else ""
    if code:  # a program holds small numbers by accident: sys.exit(0), return 0
        notes.append(f"the answer is code, not a statement of a number: {code}")
        return 0.0
    why = _unbounded(refs, pred) if mode == "strict" else ""
    if why:  # a judge may take a hedge: strict bounds what it is shown
        notes.append(why)
        return 0.0
    score = 1.0
    for kind, value in refs.items():
        if kind == "exact_match":
            if not isinstance(value, str):
                raise EvalSpecError("exact_match must be a string")
            score *= exact_match(value, pred)
        elif kind == "must_include":
            if isinstance(value, str):  # official task 81: one reference, not its letters
                value = [value]
            if not isinstance(value, list) or not value:
                raise EvalSpecError("must_include must be a non-empty list of strings")
            for item in value:
                score *= must_include(str(item), pred, tokenize=len(value) == 1)
        elif value == "N/A":  # fuzzy_match of an unachievable task
            if exact_match("N/A", pred):
                continue
            score *= await judge.unachievable(intent, str(spec.get("string_note") or ""), pred)
        else:
            if not isinstance(value, list) or not value:
                raise EvalSpecError("fuzzy_match must be \"N/A\" or a non-empty list")
            score *= await judge.fuzzy(intent, [str(v) for v in value], pred)
    return score


def _unbounded(refs: dict[str, Any], pred: str) -> str:
    """Why ``pred`` is longer than the task's ``must_include`` and ``fuzzy_match`` items
    together allow in strict mode (:func:`.strict.unbounded`), or ``""``."""
    items: list[str] = []
    for kind in ("must_include", "fuzzy_match"):
        value = refs.get(kind)
        if isinstance(value, str) and kind == "must_include":
            value = [value]
        if isinstance(value, list):
            items += [str(v) for v in value]
    return unbounded(items, clean_answer(pred), clean_answer, _NUMERIC_REF.match) if items else ""


def _split_url(url: str) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(url.strip().rstrip("/"))
    return parts.netloc.lower() + unquote(parts.path), parse_qs(parts.query)


def url_score(reference_url: str, pred_url: str, note: str = "GOLD in PRED") -> float:
    """WebArena's ``URLEvaluator``: some gold base occurs in the final URL's base, and every
    gold query key has one of its gold values there (and, unlike WebArena, no other value:
    ``?sort=a&sort=b`` is a list of candidates)."""
    if note != "GOLD in PRED":
        raise EvalSpecError(f"url_note {note!r} is not implemented (only 'GOLD in PRED')")
    pred_base, pred_query = _split_url(pred_url)
    bases: list[str] = []
    queries: dict[str, set[str]] = {}
    for ref in reference_url.split(OR):
        base, query = _split_url(ref)
        bases.append(base)
        for key, values in query.items():
            queries.setdefault(key, set()).update(values)
    if not any(base in pred_base for base in bases):
        return 0.0
    return float(all(values & set(pred_query.get(key, ())) and set(pred_query[key]) <= values
                     for key, values in queries.items()))


async def contents_score(required: dict[str, Any], selected: str, intent: str,
                         judge: Judge) -> float:
    """``required_contents`` against the text a locator selected."""
    if not isinstance(required, dict) or not required:
        raise EvalSpecError("required_contents must be a non-empty mapping")
    unknown = set(required) - CONTENT_KINDS
    if unknown:
        raise EvalSpecError(f"required_contents kind(s) not implemented: {sorted(unknown)}")
    selected = html.unescape(selected)
    score = 1.0
    if "exact_match" in required:
        score *= exact_match(str(required["exact_match"]), selected)
    if "must_include" in required:
        items = required["must_include"]
        if not isinstance(items, list) or not items:
            raise EvalSpecError("required_contents must_include must be a non-empty list")
        for item in items:
            score *= must_include(str(item), selected)
    if "fuzzy_match" in required:
        items = required["fuzzy_match"]
        if not isinstance(items, list) or not items:
            raise EvalSpecError("required_contents fuzzy_match must be a non-empty list")
        score *= await judge.page(intent, [str(i) for i in items], selected)
    return score


async def html_score(spec: dict[str, Any], probe: PageProbe, intent: str, judge: Judge,
                     helpers: SiteHelpers, notes: list[str]) -> float:
    """WebArena's ``HTMLContentEvaluator`` over ``spec["program_html"]``."""
    items = spec.get("program_html")
    if not isinstance(items, list) or not items:
        raise EvalSpecError("program_html needs a non-empty list of checks")
    score = 1.0
    for item in items:
        if not isinstance(item, dict) or set(item) - PAGE_ITEM_KEYS or "url" not in item:
            raise EvalSpecError(f"program_html item not understood: {str(item)[:200]}")
        url, locator = str(item["url"]), str(item.get("locator", ""))
        if url.startswith("func:"):
            name, args = parse_call(url[len("func:"):])
            url = await helpers.url(name, args, await probe.current_url())
        prep = [str(p) for p in item.get("prep_actions", ())]
        if not locator.strip():
            script = ""
        elif locator.startswith(("document.", "[...document.")):
            script = f"() => {locator}"
        elif locator.startswith("lambda:"):
            script = locator[len("lambda:"):]
        elif locator.startswith("func:"):
            name, args = parse_call(locator[len("func:"):])
            value = await helpers.locator(name, args)
            if value.kind == "value":
                score *= await contents_score(item["required_contents"], value.text, intent,
                                              judge)
                continue
            script = value.text
        else:
            raise EvalSpecError(f"locator not implemented: {locator[:80]!r}")
        try:
            selected = await probe.read(url, script, prep)
        except Exception as e:  # noqa: BLE001 -- a page that fails to load scores 0, with why
            if is_infrastructure_error(e):
                raise
            notes.append(f"program_html {url}: {type(e).__name__}: {e}")
            return 0.0
        if selected is None:
            notes.append(f"program_html {url}: the locator selected nothing")
            return 0.0
        score *= await contents_score(item["required_contents"], selected, intent, judge)
    return score


async def evaluate(config: dict[str, Any], answer: str | None, probe: PageProbe,
                   judge: Judge | None = None, helpers: SiteHelpers | None = None,
                   mode: str = "strict") -> EvalResult:
    """Score one episode of a task in WebArena's format (``config["eval"]``, placeholders
    already resolved) under ``mode`` (``strict`` or ``official``, :mod:`.strict`). An
    unimplemented or malformed check fails closed: score 0, ``error``."""
    check_mode(mode)
    judge = judge or NormalizedJudge()
    helpers = helpers or SiteHelpers({})
    intent = str(config.get("intent", ""))
    pred = answer or ""
    result = EvalResult(1.0)
    try:
        spec = config.get("eval")
        if isinstance(spec, list):  # WebArena-Verified's checks
            result.parts["agent_response"] = verified_score(spec, answer)
            result.score = result.parts["agent_response"]
            return result
        if not isinstance(spec, dict) or set(spec) - EVAL_KEYS:
            unknown = sorted(set(spec) - EVAL_KEYS) if isinstance(spec, dict) else spec
            raise EvalSpecError(f"eval block not understood: {str(unknown)[:200]}")
        types = spec.get("eval_types")
        if not isinstance(types, list) or not types:
            raise EvalSpecError("eval_types must be a non-empty list")
        for kind in types:
            if kind == "string_match":
                part = await string_score(spec, pred, intent, judge, result.notes, mode)
            elif kind == "url_match":
                url = await probe.current_url()
                reference = str(spec.get("reference_url") or "")
                note = spec.get("url_note") or "GOLD in PRED"
                part = (url_score(reference, url, note) if mode == "official" else
                        strict_url_score(reference, url, note, "program_html" in types))
                result.notes.append(f"final url {url}")
            elif kind == "program_html":
                part = await html_score(spec, probe, intent, judge, helpers, result.notes)
            else:
                raise EvalSpecError(f"eval type {kind!r} is not implemented")
            result.parts[kind] = part
            result.score *= part
    except EvalSpecError as e:
        logger.warning("task %s cannot be scored: %s", config.get("task_id"), e)
        return EvalResult(0.0, result.parts, result.notes, error=str(e))
    return result
