"""WebArena-Lite's evaluators over a task's ``eval`` block.

``eval_types`` picks the evaluators; each gives a score in [0, 1] and the task's score is their
product (WebArena's ``EvaluatorComb``), so it is effectively 0 or 1:

- ``string_match`` on the final answer: ``exact_match``, ``must_include`` (every item, each may
  list ``|OR|`` alternatives), ``must_exclude``, ``numeric`` (the first number in the answer equals
  the reference) and ``fuzzy_match`` (a list, or ``"N/A"`` for unachievable tasks) through a
  pluggable :class:`Judge`. Answers are cleaned first: stripped, outer quotes removed, lowercased.
- ``url_match``: the page's final URL against ``reference_url`` (``|OR|`` alternatives). With
  ``url_note`` ``"GOLD in PRED"`` (the default) the gold host+path must be contained in the
  final one and every gold query parameter present with the same values; ``"EXACT"`` compares
  the normalised URLs.
- ``program_html``: for each item, open ``url`` (``"last"`` is the final page), take the page's
  HTML or evaluate the JavaScript ``locator``, unescape it, and check ``required_contents``
  (``exact_match`` or ``must_include`` with ``|OR|`` alternatives).

Pages are reached through a :class:`PageProbe` (the env's browser; a fake in unit tests).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from .judges import Judge, NormalizedJudge

OR = " |OR| "


class PageProbe(Protocol):
    """What the HTML and URL evaluators need from the browser."""

    async def current_url(self) -> str:
        """URL of the agent's active tab at the end of the episode."""
        ...

    async def read(self, url: str, locator: str) -> str:
        """Open ``url`` (``"last"``: stay on the final page), then evaluate ``locator``."""
        ...


@dataclass
class EvalResult:
    """A task's score and what each evaluator said."""

    score: float
    parts: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def clean_answer(answer: str) -> str:
    """WebArena's answer cleaning: strip, remove one pair of outer quotes, lowercase."""
    answer = answer.strip()
    for quote in ("'", '"'):
        if len(answer) >= 2 and answer.startswith(quote) and answer.endswith(quote):
            answer = answer[1:-1]
    return answer.lower()


def exact_match(ref: str, pred: str) -> float:
    """1 when the cleaned strings are equal."""
    return float(clean_answer(pred) == clean_answer(ref))


def must_include(ref: str, pred: str) -> float:
    """1 when any ``|OR|`` alternative of ``ref`` is a substring of the cleaned prediction."""
    cleaned = clean_answer(pred)
    return float(any(clean_answer(alt) in cleaned for alt in ref.split(OR)))


def must_exclude(ref: str, pred: str) -> float:
    """1 when ``ref`` does not occur in the cleaned prediction."""
    return float(clean_answer(ref) not in clean_answer(pred))


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def first_number(text: str) -> float | None:
    """The first number in ``text`` (thousands separators and currency signs ignored)."""
    m = _NUMBER.search(re.sub(r"(?<=\d),(?=\d{3})", "", text))
    return float(m.group()) if m else None


def numeric_match(ref: Any, pred: str, tolerance: float = 1e-6) -> float:
    """1 when the first number of the prediction equals ``ref`` (within ``tolerance``)."""
    want, got = first_number(str(ref)), first_number(pred)
    return float(want is not None and got is not None and abs(want - got) <= tolerance)


async def string_score(refs: dict[str, Any], pred: str, intent: str, judge: Judge) -> float:
    """The ``string_match`` score of ``pred`` against ``reference_answers``."""
    score = 1.0
    for kind, value in refs.items():
        if kind == "exact_match":
            score *= exact_match(str(value), pred)
        elif kind == "must_include":
            for item in value:
                score *= must_include(str(item), pred)
        elif kind == "must_exclude":
            for item in value:
                score *= must_exclude(str(item), pred)
        elif kind == "numeric":
            score *= numeric_match(value, pred)
        elif kind == "fuzzy_match":
            if value == "N/A":
                exact = exact_match("N/A", pred)
                score *= exact if exact else await judge.unachievable(intent, pred)
            else:
                score *= await judge.fuzzy(intent, [str(v) for v in value], pred)
        else:
            raise ValueError(f"unknown reference answer kind {kind!r}")
    return score


def _split_url(url: str) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(unquote(url.strip()))
    base = (parts.netloc + parts.path).rstrip("/").lower()
    return base, {k: sorted(v) for k, v in parse_qs(parts.query).items()}


def url_score(reference_url: str, pred_url: str, note: str = "GOLD in PRED") -> float:
    """1 when the final URL matches any ``|OR|`` alternative of ``reference_url``."""
    pred_base, pred_query = _split_url(pred_url)
    for ref in reference_url.split(OR):
        ref_base, ref_query = _split_url(ref)
        if note.upper() == "EXACT":
            if (ref_base, ref_query) == (pred_base, pred_query):
                return 1.0
            continue
        if ref_base in pred_base and all(
            set(values) <= set(pred_query.get(key, ())) for key, values in ref_query.items()
        ):
            return 1.0
    return 0.0


def contents_score(required: dict[str, Any], selected: str) -> float:
    """``required_contents`` against the text a locator selected."""
    selected = html.unescape(selected)
    score = 1.0
    if "exact_match" in required:
        score *= exact_match(str(required["exact_match"]), selected)
    for item in required.get("must_include", ()):
        score *= must_include(str(item), selected)
    for item in required.get("must_exclude", ()):
        score *= must_exclude(str(item), selected)
    return score


async def evaluate(config: dict[str, Any], answer: str | None, probe: PageProbe,
                   judge: Judge | None = None) -> EvalResult:
    """Score one episode of a task in WebArena's format (``config["eval"]``)."""
    spec = config["eval"]
    judge = judge or NormalizedJudge()
    intent = str(config.get("intent", ""))
    pred = answer or ""
    result = EvalResult(1.0)
    for kind in spec["eval_types"]:
        if kind == "string_match":
            part = await string_score(spec["reference_answers"], pred, intent, judge)
        elif kind == "url_match":
            url = await probe.current_url()
            part = url_score(spec["reference_url"], url, spec.get("url_note") or "GOLD in PRED")
            result.notes.append(f"final url {url}")
        elif kind == "program_html":
            part = 1.0
            for item in spec["program_html"]:
                try:
                    selected = await probe.read(item["url"], item.get("locator", ""))
                except Exception as e:  # a page that fails to load scores 0, with the reason
                    result.notes.append(f"program_html {item['url']}: {type(e).__name__}: {e}")
                    part = 0.0
                    break
                part *= contents_score(item["required_contents"], selected)
        else:
            raise ValueError(f"unknown eval type {kind!r}")
        result.parts[kind] = part
        result.score *= part
    return result
