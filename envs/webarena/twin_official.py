"""The official WebArena-Lite intent templates, instantiated on the bundled sites' data.

These are **stand-in instantiations**: the intent templates (and their ids) are WebArena-Lite's,
read at run time from the installed ``browsergym-webarenalite`` package (nothing of the task text
is in this repository); the slot values, gold answers and expert steps come from the bundled
sites' template databases (:mod:`.twin_ports`), where the bundled site has the feature the
template needs. A template the bundled sites cannot serve is listed in
:data:`.twin_ports.UNCOVERED` with the reason.

Two splits join the twin's task set when the package is installed: ``lite-test`` (one
instantiation of every covered template, as WebArena-Lite has one task per template) and
``lite-train`` (up to :data:`TRAIN_PER_TEMPLATE` other instantiations); no instantiation is in
both. ``python -m agentgym.envs.webarena.twin_official`` prints the coverage table of
docs/webarena.md (a test checks the two agree).
"""

from __future__ import annotations

import random
import re
import sys
from functools import cache
from itertools import islice
from typing import Any

from agentgym.tasks import Task

from .official import OfficialTasksMissing, read_official
from .sites.state import SITES, open_template
from .twin_ports import PORTS, UNCOVERED

TRAIN_PER_TEMPLATE = 4
"""``lite-train`` instantiations per covered template (fewer when the data has fewer)."""
POOL = 40
"""Candidates read from each port (its first ones, then shuffled): enough for the splits and
cheap to build (some ports have a thousand)."""
LITE_ID_BASE = 7000
"""``lite-test`` ids are ``7000 + WebArena-Lite task id``; ``lite-train`` ids start at 8000."""
_SLOT = re.compile(r"\{\{(.*?)\}\}")


def official_templates() -> dict[int, dict[str, Any]]:
    """WebArena-Lite's records by ``intent_template_id`` (one task each)."""
    return {int(r["intent_template_id"]): r for r in read_official("webarena-lite")}


def render(template: str, slots: dict[str, str]) -> str:
    """``template`` with every ``{{slot}}`` replaced by its value."""
    def fill(m: re.Match[str]) -> str:
        if m.group(1) not in slots:
            raise KeyError(f"no value for slot {m.group(1)!r} of {template!r}")
        return slots[m.group(1)]
    return _SLOT.sub(fill, template)


def _instantiate(official: dict[str, Any], cand: dict[str, Any]) -> dict[str, Any]:
    slots = {k: str(v) for k, v in cand.pop("slots").items()}
    wanted = set(_SLOT.findall(official["intent_template"]))
    if set(slots) != wanted:
        raise ValueError(f"template {official['intent_template_id']}: slots {sorted(slots)} "
                         f"!= {sorted(wanted)}")
    cand.update(intent_template=official["intent_template"], instantiation_dict=slots,
                intent=render(official["intent_template"], slots),
                intent_template_id=official["intent_template_id"], sites=official["sites"],
                storage_state=(f"./.auth/{'.'.join(official['sites'])}_state.json"
                               if cand["require_login"] else None),
                official_eval_types=official["eval"]["eval_types"])
    return cand


@cache
def lite_records() -> dict[str, tuple[dict[str, Any], ...]]:
    """``lite-test`` and ``lite-train`` records (raises :class:`OfficialTasksMissing` without
    the package)."""
    templates = official_templates()
    dbs = {site: open_template(site) for site in SITES}
    out: dict[str, list[dict[str, Any]]] = {"lite-test": [], "lite-train": []}
    try:
        for oid, port in sorted(PORTS.items()):
            seen: set[str] = set()
            pool = []
            for cand in islice(port(dbs), POOL):
                rec = _instantiate(templates[oid], cand)
                if rec["intent"].lower() not in seen:
                    seen.add(rec["intent"].lower())
                    pool.append(rec)
            if not pool:
                raise ValueError(f"template {oid}: no instantiation on the bundled data")
            random.Random(oid).shuffle(pool)
            test = pool[0]
            test["task_id"] = LITE_ID_BASE + int(templates[oid]["task_id"])
            out["lite-test"].append(test)
            out["lite-train"].extend(pool[1 : 1 + TRAIN_PER_TEMPLATE])
    finally:
        for conn in dbs.values():
            conn.close()
    for i, rec in enumerate(out["lite-train"]):
        rec["task_id"] = LITE_ID_BASE + 1000 + i
    return {k: tuple(v) for k, v in out.items()}


def lite_tasks() -> list[Task]:
    """The ``lite-*`` splits as tasks; none when the official package is not installed."""
    try:
        records = lite_records()
    except OfficialTasksMissing:
        return []
    return [Task(str(r["task_id"]), split, str(r["intent"]), {"config": dict(r)})
            for split, rs in records.items() for r in rs]


def coverage() -> list[tuple[int, str, str, str, str]]:
    """``(template id, sites, official eval types, the twin's eval types, covered by | reason
    not)`` for all 165 templates."""
    twin = {r["intent_template_id"]: "+".join(r["eval"]["eval_types"])
            for r in lite_records()["lite-test"]}
    rows = []
    for oid, rec in sorted(official_templates().items()):
        sites = "+".join(rec["sites"])
        types = "+".join(rec["eval"]["eval_types"])
        if oid in PORTS:
            doc = (PORTS[oid].__doc__ or "").strip().splitlines()[0]
            rows.append((oid, sites, types, twin[oid], f"covered: {doc}"))
        else:
            rows.append((oid, sites, types, "", f"not covered: {UNCOVERED[oid]}"))
    return rows


def coverage_markdown() -> str:
    """The coverage table of docs/webarena.md, with its figure."""
    rows = coverage()
    n = sum(r[4].startswith("covered") for r in rows)
    same = sum(r[2] == r[3] for r in rows)
    lines = [f"Covered: **{n} of {len(rows)}** official templates ({same} with the official "
             "evaluation types, the rest with a subset of them or a URL check for a page check).",
             "", "| template | sites | official eval | twin eval | twin |", "|---|---|---|---|---|"]
    lines += [f"| {oid} | {sites} | {types} | {twin} | {what} |"
              for oid, sites, types, twin, what in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(coverage_markdown())
