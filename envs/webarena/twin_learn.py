"""The twin's learning splits: short-episode templates a 135M model can learn, held out cleanly.

``learn-train`` and ``learn-test`` are instantiations of a few twin templates whose scripted
expert takes two or three actions (search the store for a term; open a place's page on the map),
drawn from the instantiations that neither ``train`` nor ``test`` uses, so they share no task
with the main splits nor with each other. ``benchmarks/web_learning.py`` trains on
``learn-train`` (behaviour cloning from the experts, then multi-turn GRPO) and measures
``learn-test``.
"""

from __future__ import annotations

import random
from typing import Any

from agentgym.tasks import Task

from .sites.state import SITES, open_template
from .taskgen import Template

LEARN_TEMPLATES = (108, 406)
"""Template ids of the learning splits (store search: 2 actions; map page: 3 actions)."""
LEARN_TEST = 20
"""Held-out instantiations per template (40 held-out tasks: issue 40 asks for at least 40)."""
LEARN_TRAIN = 30
"""Train instantiations per template (fewer when the template has fewer unused ones)."""
LEARN_ID_BASE = 5000
"""Learning task ids start here."""


def learn_records(templates: list[Template], used: set[str]) -> dict[str, list[dict[str, Any]]]:
    """``learn-test`` and ``learn-train`` records of :data:`LEARN_TEMPLATES`, none of whose
    intents is in ``used`` (the lower-cased intents of the main splits)."""
    dbs = {site: open_template(site) for site in SITES}
    out: dict[str, list[dict[str, Any]]] = {"learn-test": [], "learn-train": []}
    try:
        for t in templates:
            if t.id not in LEARN_TEMPLATES:
                continue
            seen = set(used)
            pool = []
            for cand in t.generate(t, dbs):
                key = cand["intent"].lower()
                if key not in seen:
                    seen.add(key)
                    pool.append(cand)
            random.Random(LEARN_ID_BASE + t.id).shuffle(pool)
            out["learn-test"].extend(pool[:LEARN_TEST])
            out["learn-train"].extend(pool[LEARN_TEST : LEARN_TEST + LEARN_TRAIN])
    finally:
        for conn in dbs.values():
            conn.close()
    for split, records in out.items():  # templates interleaved: any prefix mixes them
        by_template: dict[int, list[dict[str, Any]]] = {}
        for rec in records:
            by_template.setdefault(rec["intent_template_id"], []).append(rec)
        columns = list(by_template.values())
        out[split] = [c[i] for i in range(max(map(len, columns), default=0))
                      for c in columns if i < len(c)]
    next_id = LEARN_ID_BASE
    for split in ("learn-test", "learn-train"):
        for rec in out[split]:
            rec["task_id"] = next_id
            next_id += 1
    return out


def learn_tasks(templates: list[Template], used: set[str]) -> list[Task]:
    """The learning splits as tasks (``data["config"]`` is the record)."""
    return [Task(str(r["task_id"]), split, str(r["intent"]), {"config": r})
            for split, records in learn_records(templates, used).items() for r in records]
