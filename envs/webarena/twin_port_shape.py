"""The shape of a port: an official WebArena-Lite template instantiated on the bundled data.

Each port yields candidates (:func:`port`): the official template's slot values, the start page,
expert steps and the gold check computed from the template databases. The intent text is the
official template's, filled in by :mod:`.twin_official` at run time. :func:`adapt` reuses one of
the twin's own templates (:data:`TWIN`) under an official one.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterator
from typing import Any

from .taskgen import Candidate, Template, record
from .templates_forum import FORUM_TEMPLATES, MULTI_TEMPLATES
from .templates_gitlab import GITLAB_TEMPLATES
from .templates_map import MAP_TEMPLATES
from .templates_shop import SHOP_TEMPLATES, A, Dbs, S

Port = Callable[[Dbs], Iterator[Candidate]]
_SHELL = Template(0, ("shopping",), "", 0, lambda t, d: iter(()))
TWIN = {t.id: t for t in [*SHOP_TEMPLATES, *GITLAB_TEMPLATES, *MAP_TEMPLATES, *FORUM_TEMPLATES,
                          *MULTI_TEMPLATES]}
"""The twin's own templates by id (ports reuse their generators)."""


def month_name(ym: str) -> str:
    """``2023-02`` -> ``February 2023``."""
    return f"{calendar.month_name[int(ym[5:7])]} {ym[:4]}"


def port(slots: dict[str, Any], start_url: str, expert: list[dict[str, Any]],
         **check: Any) -> Candidate:
    """A candidate for an official template: its slot values, start page, expert and gold."""
    rec = record(_SHELL, {}, start_url, expert, **check)
    rec["slots"] = {k: str(v) for k, v in slots.items()}
    return rec


def adapt(twin_id: int, dbs: Dbs, slots: Callable[[dict[str, str]], dict[str, Any] | None],
          keep: tuple[str, ...] = ("string_match", "url_match", "program_html")
          ) -> Iterator[Candidate]:
    """The twin template ``twin_id``'s candidates under an official template: ``slots`` maps
    the twin's slot values to the official ones (``None`` skips the candidate); only the
    evaluators in ``keep`` are kept."""
    t = TWIN[twin_id]
    for cand in t.generate(t, dbs):
        mapped = slots(cand["instantiation_dict"])
        if mapped is None:
            continue
        ev = cand["eval"]
        if "string_match" not in keep:
            ev["reference_answers"] = None
        if "url_match" not in keep:
            ev["reference_url"] = ""
        if "program_html" not in keep:
            ev["program_html"] = []
        ev["eval_types"] = [k for k in ev["eval_types"] if k in keep]
        cand["slots"] = {k: str(v) for k, v in mapped.items()}
        yield cand


__all__ = ["TWIN", "A", "Dbs", "Port", "S", "adapt", "month_name", "port"]
