"""Constant-answer base rates of the WebArena task sets under each evaluation mode (issue 35).

For every task set the project has (the official ``webarena-lite``, ``webarena`` and
``webarena-verified`` sets when the ``[webarena]`` extra is installed, and the twin's ``test``
and ``lite-test`` stand-ins), each task is scored with the evaluators alone (no servers) for
every *constant* episode: a fixed final answer (:func:`constant_answers`: empty, ``N/A``, yes /
no, small numbers, WebArena-Verified JSON answers for every task type and status, and one word
list of every reference answer of the set) paired with a fixed final URL (each site's home page,
and one URL whose path lists every gold URL of the set). ``program_html`` checks read nothing (a
constant cannot change the sites; they would need the servers), so they score 0.

``python -m agentgym.envs.webarena.base_rates`` prints, per set and mode, the share of tasks the
best single constant passes and the share that *some* constant passes (docs/webarena.md).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .evaluators import EvalResult, evaluate
from .strict import EVAL_MODES

_PLACEHOLDER = re.compile(r"__([A-Z_]+)__")
VERIFIED_TYPES = ("RETRIEVE", "MUTATE", "NAVIGATE")
VERIFIED_STATUSES = ("SUCCESS", "NOT_FOUND_ERROR", "ACTION_NOT_ALLOWED_ERROR",
                     "PERMISSION_DENIED_ERROR", "DATA_VALIDATION_ERROR", "UNKNOWN_ERROR")
NO_DATA: tuple[Any, ...] = (None, [])
PLAIN = ("", "N/A", "0", "1", "yes", "no", "none", "true", "false", "done")


def resolve(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with every ``__SITE__`` placeholder replaced by ``http://site.test``."""
    text = json.dumps(config)
    return json.loads(_PLACEHOLDER.sub(lambda m: f"http://{m.group(1).lower()}.test", text))


def _references(records: Iterable[dict[str, Any]]) -> list[str]:
    found: list[str] = []
    for rec in records:
        spec = rec.get("eval")
        refs = spec.get("reference_answers") if isinstance(spec, dict) else None
        for value in (refs or {}).values() if isinstance(refs, dict) else ():
            for text in [value] if isinstance(value, str) else list(value or ()):
                for alt in str(text).split(" |OR| "):
                    if alt.strip() and alt not in found:
                        found.append(alt.strip())
    return found


def constant_answers(records: list[dict[str, Any]]) -> list[str]:
    """The fixed final answers tried on every task of ``records``."""
    verified = [json.dumps({"task_type": t, "status": s, "retrieved_data": data})
                for t in VERIFIED_TYPES for s in VERIFIED_STATUSES
                for data in (NO_DATA if t == "RETRIEVE" else NO_DATA[:1])]
    return [*PLAIN, *verified, ", ".join(_references(records))]


def constant_urls(records: list[dict[str, Any]]) -> list[str]:
    """The fixed final URLs tried: each site's home page and one URL listing every gold URL."""
    sites = sorted({m.lower() for rec in records
                    for m in _PLACEHOLDER.findall(json.dumps(rec.get("eval", "")))})
    golds = []
    for rec in records:
        spec = resolve(rec).get("eval")
        ref = spec.get("reference_url") if isinstance(spec, dict) else None
        for alt in str(ref or "").split(" |OR| "):
            if alt.strip():  # host and path only: a "?" would start the listing's query
                golds.append(re.sub(r"^https?://", "", alt.strip()).split("?")[0].split("#")[0])
    homes = [f"http://{s}.test/" for s in sites] or ["http://shopping.test/"]
    return [*homes, f"{homes[0]}{'/'.join(golds)}"]


class _ConstantPage:
    def __init__(self, url: str) -> None:
        self.url = url

    async def current_url(self) -> str:
        return self.url

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        return None


@dataclass
class BaseRate:
    """What constants earn on one task set under one mode."""

    task_set: str
    mode: str
    tasks: int
    best: float
    """Share of tasks the best single (answer, URL) pair passes."""
    best_constant: tuple[str, str]
    any_constant: float
    """Share of tasks some constant pair passes."""


async def _score(config: dict[str, Any], answer: str, url: str, mode: str) -> EvalResult:
    return await evaluate(config, answer, _ConstantPage(url), mode=mode)


def base_rate(name: str, records: list[dict[str, Any]], mode: str) -> BaseRate:
    """The constant-answer base rate of ``records`` (task set ``name``) under ``mode``."""
    answers, urls = constant_answers(records), constant_urls(records)
    pairs = [(a, u) for a in answers for u in urls]
    wins = [0] * len(pairs)
    passed = 0

    async def run() -> None:
        nonlocal passed
        for rec in records:
            config = resolve(rec)
            hit = False
            for i, (a, u) in enumerate(pairs):
                if (await _score(config, a, u, mode)).score >= 1.0:
                    wins[i] += 1
                    hit = True
            passed += hit

    logging_off()
    asyncio.run(run())
    n = max(1, len(records))
    top = max(range(len(pairs)), key=wins.__getitem__)
    answer, url = pairs[top]
    label = ("every reference of the set, as one list" if answer == answers[-1] else answer[:60],
             "the URL listing every gold path" if url == urls[-1] else "a home page")
    return BaseRate(name, mode, len(records), wins[top] / n, label, passed / n)


def logging_off() -> None:
    """Silence the evaluators' per-task warnings (unimplemented checks) during a sweep."""
    import logging

    logging.getLogger("agentgym.envs.webarena.evaluators").setLevel(logging.ERROR)


def task_sets() -> dict[str, list[dict[str, Any]]]:
    """Every WebArena task set the project has, by name (official ones only when installed)."""
    from .official import OfficialTasksMissing, read_official
    from .tasks import DATA, read_raw

    out: dict[str, list[dict[str, Any]]] = {"twin test": read_raw(DATA / "test.raw.json")}
    try:
        from .twin_official import lite_records

        out["twin lite-test"] = list(lite_records()["lite-test"])
        for name in ("webarena-lite", "webarena", "webarena-verified"):
            out[name] = read_official(name)
    except OfficialTasksMissing:
        pass
    return out


def table(modes: tuple[str, ...] = EVAL_MODES) -> list[BaseRate]:
    """:func:`base_rate` of every task set under every mode."""
    return [base_rate(name, records, mode) for name, records in task_sets().items()
            for mode in modes]


def main() -> None:
    """Print the table as markdown (the rows of docs/webarena.md)."""
    import sys

    out = sys.stdout
    out.write("| task set | tasks | mode | best constant | some constant |\n")
    out.write("| --- | --- | --- | --- | --- |\n")
    for r in table():
        out.write(f"| {r.task_set} | {r.tasks} | {r.mode} | {r.best:.1%} "
                  f"(`{r.best_constant[0][:40]}` on {r.best_constant[1]}) | "
                  f"{r.any_constant:.1%} |\n")


if __name__ == "__main__":
    main()


__all__ = ["BaseRate", "base_rate", "constant_answers", "constant_urls", "resolve", "table",
           "task_sets"]
