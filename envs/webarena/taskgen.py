"""Building blocks of the task templates: WebArena task records, evaluator blocks, expert steps.

A template is an intent with slots, the test and train counts it contributes, and a generator
that reads the sites' template databases and yields every candidate instantiation with its gold
answer computed from that data. :mod:`.tasks` shuffles the candidates, gives the first ones to
``test`` and the next ones to ``train``, so no instantiation is in both splits.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

ROWS = ("[...document.querySelectorAll('main table tbody tr')].map(r => [...r.cells]"
        ".map(c => c.innerText.trim()).join(' | ')).join('\\n')")
"""Locator: every table row of the page as ``cell | cell | cell`` lines."""

Candidate = dict[str, Any]
Generator = Callable[["Template", dict[str, sqlite3.Connection]], Iterator[Candidate]]
"""A template's candidate generator: ``(template, template databases) -> candidates``."""


def fact(label: str) -> str:
    """Locator: the value shown for ``label`` in the page's facts list."""
    return f"document.querySelector('[data-fact=\"{label}\"]').innerText"


def value_of(element_id: str) -> str:
    """Locator: the current value of the form field with ``element_id``."""
    return f"document.querySelector('#{element_id}').value"


def html_check(url: str, locator: str, *, exact: str | None = None,
               include: list[str] | None = None) -> dict[str, Any]:
    """One ``program_html`` item."""
    required: dict[str, Any] = {}
    if exact is not None:
        required["exact_match"] = exact
    if include is not None:
        required["must_include"] = include
    return {"url": url, "locator": locator, "required_contents": required}


def query(path: str, **params: Any) -> str:
    """``path?urlencoded params``."""
    return f"{path}?{urlencode(params)}" if params else path


# -- expert steps (JSON) -------------------------------------------------------------------------


def goto(url: str) -> dict[str, Any]:
    """Expert step: ``goto [url]`` (placeholders are replaced by the env)."""
    return {"op": "goto", "url": url}


def click(name: str, role: str | None = None) -> dict[str, Any]:
    """Expert step: click the element named ``name`` in the observation."""
    return {"op": "click", "name": name, "role": role}


def type_(name: str, text: str, enter: bool = False) -> dict[str, Any]:
    """Expert step: type ``text`` into the field named ``name``."""
    return {"op": "type", "name": name, "text": text, "enter": enter}


def select(name: str, option: str) -> dict[str, Any]:
    """Expert step: pick ``option`` in the drop-down named ``name``."""
    return {"op": "select", "name": name, "option": option}


def stop(answer: str = "") -> dict[str, Any]:
    """Expert step: ``stop [answer]``."""
    return {"op": "stop", "answer": answer}


@dataclass(frozen=True)
class Template:
    """An intent template, its share of each split and its candidate generator."""

    id: int
    sites: tuple[str, ...]
    intent: str
    """Intent with ``{slot}`` fields."""
    test: int
    generate: Generator
    train: int = -1
    """Train instantiations (default: four times :attr:`test`)."""

    @property
    def n_train(self) -> int:
        """Train instantiations wanted."""
        return self.train if self.train >= 0 else 4 * self.test


def record(t: Template, slots: dict[str, Any], start_url: str, expert: list[dict[str, Any]], *,
           answers: dict[str, Any] | None = None, url: str | None = None,
           html: list[dict[str, Any]] | None = None, login: bool = True,
           url_note: str = "GOLD in PRED") -> Candidate:
    """A task in WebArena's JSON schema (``task_id`` is set later) plus its expert steps."""
    types = [k for k, v in (("string_match", answers), ("url_match", url),
                            ("program_html", html)) if v]
    intent_template = re.sub(r"\{(\w+)\}", r"{{\1}}", t.intent)
    return {
        "sites": list(t.sites),
        "task_id": None,
        "require_login": login,
        "storage_state": f"./.auth/{'.'.join(t.sites)}_state.json" if login else None,
        "start_url": start_url,
        "geolocation": None,
        "intent_template": intent_template,
        "instantiation_dict": {k: str(v) for k, v in slots.items()},
        "intent": t.intent.format(**slots),
        "require_reset": bool(html),
        "eval": {
            "eval_types": types,
            "reference_answers": answers,
            "reference_url": url or "",
            "program_html": html or [],
            "string_note": "",
            "url_note": url_note,
        },
        "intent_template_id": t.id,
        "expert": expert,
    }
