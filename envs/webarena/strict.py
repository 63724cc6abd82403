"""WebArena's strict evaluation mode: exact normalised URLs and bounded answers (issue 35).

The official semantics (``eval_mode="official"``, for numbers comparable with published ones)
let a constant earn reward: ``url_match`` is a substring test on host and path, so one URL whose
path lists the gold paths passes many url-only tasks, and ``must_include`` has no length limit
for non-numeric references, so a list of candidate words passes. ``eval_mode="strict"`` (the
default, for training) changes exactly these two checks:

- ``url_match``: the final URL's scheme, host, port and path must *equal* those of one ``|OR|``
  alternative of the gold URL after normalising both (:func:`normalise_url`: scheme and host
  lowercased, default port dropped, path percent-decoded with repeated and trailing slashes
  removed, fragment dropped; not a substring), and each of that alternative's query keys must
  be there with only its gold values (other keys, ``page=2``, may be there too: they cannot make
  one URL pass tasks with other paths or values). Where the task also checks the page or the
  answer (``url_match`` with ``program_html``: "post in forum X", gold ``/f/books``, final
  ``/f/books/433``), the gold path may be a *segment prefix* of the final one: the URL only
  locates the page the other check reads, and a constant URL passes no ``program_html``;
- ``string_match`` ``must_include`` and ``fuzzy_match`` (a list; the offline judge takes a
  hedge such as ``8h 33min, 5h 47min``): the cleaned answer may be at most
  ``LENGTH_FACTOR * len(reference) + LENGTH_SLACK`` characters (the reference: the longest
  ``|OR|`` alternative of every ``must_include`` and ``fuzzy_match`` item of the task, summed)
  and hold at most ``EXTRA_PARTS`` more parts separated by ``, ; | / newline`` than the
  reference itself has (``byteblaze/docs-portal`` is two, an address with its town three), so
  an answer cannot enumerate candidates.

Everything else (exact and fuzzy matches, ``program_html``, WebArena-Verified's checks) is the
same in both modes. ``python -m agentgym.envs.webarena.base_rates`` prints what constant
answers and URLs earn under each mode (docs/webarena.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qsl, unquote, urlsplit

from .official_helpers import EvalSpecError

EVAL_MODES = ("strict", "official")
"""``strict`` (the default: training) and ``official`` (WebArena's semantics: reporting)."""
LENGTH_FACTOR = 2
LENGTH_SLACK = 20
EXTRA_PARTS = 2
_DEFAULT_PORTS = {"http": 80, "https": 443}
_PARTS = re.compile(r"[,;|/\n\t]+")
OR = " |OR| "


def check_mode(mode: str) -> str:
    """``mode`` when it is one of :data:`EVAL_MODES`, else ValueError naming them."""
    if mode not in EVAL_MODES:
        raise ValueError(f"eval_mode must be one of {', '.join(EVAL_MODES)}, not {mode!r}")
    return mode


def normalise_url(url: str) -> tuple[str, str, str, tuple[tuple[str, str], ...]] | None:
    """``(scheme, host[:port], path, sorted query)`` of ``url``; None when it is not a URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not scheme or not host:
        return None
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    path = re.sub(r"/{2,}", "/", unquote(parts.path)).rstrip("/")
    query = tuple(sorted((k, v) for k, v in parse_qsl(parts.query) if v != ""))
    return scheme, host, path, query


def _same(ref: tuple[str, str, str, tuple[tuple[str, str], ...]] | None,
          pred: tuple[str, str, str, tuple[tuple[str, str], ...]], prefix_ok: bool) -> bool:
    if ref is None or ref[:2] != pred[:2]:
        return False
    if ref[2] != pred[2] and not (prefix_ok and pred[2].startswith(ref[2] + "/")):
        return False
    gold: dict[str, set[str]] = {}
    for key, value in ref[3]:
        gold.setdefault(key, set()).add(value)
    given: dict[str, set[str]] = {}
    for key, value in pred[3]:
        given.setdefault(key, set()).add(value)
    return all(given.get(key) and given[key] <= values for key, values in gold.items())


def strict_url_score(reference_url: str, pred_url: str, note: str = "GOLD in PRED",
                     prefix_ok: bool = False) -> float:
    """1 when the final URL is one gold alternative, both normalised (see the module);
    ``prefix_ok``: the gold path may be a segment prefix of the final one."""
    if note != "GOLD in PRED":
        raise EvalSpecError(f"url_note {note!r} is not implemented (only 'GOLD in PRED')")
    pred = normalise_url(pred_url)
    if pred is None:
        return 0.0
    return float(any(_same(normalise_url(ref), pred, prefix_ok) for ref in reference_url.split(OR)
                     if ref.strip()))


def answer_bound(items: list[str], clean: Callable[[str], str]) -> tuple[int, int]:
    """``(most characters, most parts)`` a ``must_include`` answer may have for ``items``;
    ``clean`` is the answer cleaner applied to each reference."""
    alternatives = [[clean(a) for a in item.split(OR)] for item in items]
    ref_len = sum(max(len(a) for a in alts) for alts in alternatives)
    ref_parts = sum(max(max(_count_parts(a), 1) for a in alts) for alts in alternatives)
    return LENGTH_FACTOR * ref_len + LENGTH_SLACK, ref_parts + EXTRA_PARTS


def _count_parts(text: str) -> int:
    return sum(1 for p in _PARTS.split(text) if p.strip())


def unbounded(items: list[str], cleaned: str, clean: Callable[[str], str],
              numeric: Callable[[str], object]) -> str:
    """Why the cleaned answer is too long for ``items`` (a list of candidates), or ``""``.

    Only answers to a reference with a non-numeric item are bounded (``numeric(text)``: whether
    a cleaned alternative is a number; numbers are matched whole and a hedge of numbers is
    refused already)."""
    if all(numeric(clean(a)) for item in items for a in item.split(OR)):
        return ""
    most_chars, most_parts = answer_bound(items, clean)
    if len(cleaned) > most_chars:
        return (f"the answer has {len(cleaned)} characters, more than the {most_chars} its "
                "reference allows in strict mode")
    parts = _count_parts(cleaned)
    if parts > most_parts:
        return (f"the answer lists {parts} parts, more than the {most_parts} its "
                "reference allows in strict mode")
    return ""


__all__ = ["EVAL_MODES", "EXTRA_PARTS", "LENGTH_FACTOR", "LENGTH_SLACK", "answer_bound",
           "check_mode", "normalise_url", "strict_url_score", "unbounded"]
