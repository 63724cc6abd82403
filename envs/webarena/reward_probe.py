"""``check_rewards`` for the official WebArena task sets at the evaluator level (issue 35).

The official sets need the WebArena servers to be played, but their scorer is a function of the
final answer and URL (``program_html`` aside: a constant cannot change a site, so those checks
read nothing here and score 0). :func:`check_task_set` runs
:func:`agentgym.testing.check_scorer` over every task of a set with the evaluators of
:mod:`.evaluators` in one mode; a payload that is a task's own answer (``N/A`` on an
unachievable task, ``0`` where the answer is 0) is that task's base rate, published in
docs/webarena.md by :mod:`.base_rates`, not a hack.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agentgym.testing.rewards import RewardCheckResult
from agentgym.testing.scorer_probes import check_scorer

from .base_rates import constant_answers, logging_off, resolve
from .evaluators import _NUMERIC_REF, clean_answer, evaluate, numbers_in
from .official_verified import verified_score


class _Final:
    def __init__(self, url: str) -> None:
        self.url = url

    async def current_url(self) -> str:
        return self.url

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        return None


def _truths(config: dict[str, Any]) -> list[str]:
    spec = config.get("eval")
    refs = spec.get("reference_answers") if isinstance(spec, dict) else None
    out: list[str] = []
    for kind, value in (refs or {}).items() if isinstance(refs, dict) else ():
        items = [value] if isinstance(value, str) else list(value or ())
        if kind == "exact_match" or len(items) == 1:
            out += [alt for item in items for alt in str(item).split(" |OR| ")]
    return out


def is_truth(config: dict[str, Any], text: str) -> bool:
    """Whether ``text`` is the task's own answer: one of its references (for a number: a text
    whose only numbers are the reference's), or (WebArena-Verified) an expected response with
    no data that ``text`` matches."""
    spec = config.get("eval")
    if isinstance(spec, list):
        empty = all(not (c.get("expected") or {}).get("retrieved_data")
                    for c in spec if isinstance(c, dict))
        return empty and verified_score(spec, text) >= 1.0
    truths = [clean_answer(t) for t in _truths(config)]
    if truths and all(_NUMERIC_REF.match(t) for t in truths):  # a statement of the number
        return bool(numbers_in(clean_answer(text))) and \
            numbers_in(clean_answer(text)) <= set().union(*(numbers_in(t) for t in truths))
    return clean_answer(text) in truths


def check_task_set(name: str, records: list[dict[str, Any]],
                   mode: str = "strict") -> RewardCheckResult:
    """Every scorer-level probe over ``records`` (a WebArena task set) under ``mode``."""
    logging_off()
    configs = [resolve(r) for r in records]
    loop = asyncio.new_event_loop()

    def score(config: dict[str, Any], answer: str, url: str | None) -> float:
        final = url if url is not None else str(config.get("start_url") or "").split(" |AND| ")[0]
        return loop.run_until_complete(evaluate(config, answer, _Final(final), mode=mode)).score

    try:
        return check_scorer(f"{name} ({mode})", configs, score,
                            question=lambda c: str(c.get("intent", "")), is_truth=is_truth,
                            constants=constant_answers([])[:-1])
    finally:
        loop.close()


__all__ = ["check_task_set", "is_truth"]
