"""``check_scorer``: the reward probes at the scorer level, over a whole task set, no servers.

Some task sets can only be played against servers the project does not run (the official
WebArena sets need the WebArena sites), but their scorer is a function of the final answer and
the final URL. :func:`check_scorer` plays every probe payload that needs no environment on
*every* task of the set, through that function, and compares each payload's mean score with a
do-nothing episode's (an empty answer on the start URL):

- ``constants``: the constant texts of :mod:`.answer_probes` and the caller's ``constants``;
- ``answer_space``: every short leaf of every task's data, whatever its key, as one list;
- ``candidates``: each task's own data leaves as one list (the gold among them);
- ``numbers``: every number from 0 to 399;
- ``echo``: the task's question; ``huge``: 100,000 characters; ``claims``: claims of success;
- ``navigate``: every URL found in the tasks' data, one at a time, each site's home page, and one
  URL whose path lists them all (a substring URL check pays it).

A task covers the ``rare`` class by itself: every task is scored, not a sample of seeds.

A payload that *is* a task's true answer (``is_truth(task, text)``, e.g. ``N/A`` for an
unachievable task) is not counted on that task: that is the task's own base rate, not a hack
(the caller publishes it). A class fails when its best payload's mean passes the baseline's by
more than ``tolerance``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .answer_probes import CONSTANT_TEXTS, _leaves
from .probe_payloads import CLAIMS
from .rewards import DEFAULT_TOLERANCE, ProbeResult, RewardCheckResult

Score = Callable[[Any, str, str | None], float]
"""``score(task, answer, final_url or None)`` -> the task's reward."""
_URL = re.compile(r"^https?://\S+$")
_MAX_SPACE = 400
_MAX_URLS = 40


def _space(tasks: Sequence[Any], data: Callable[[Any], Any]) -> list[str]:
    found: dict[str, None] = {}
    for task in tasks:
        for leaf in _leaves(data(task)):
            found.setdefault(leaf)
    return list(found)


def _variants(tasks: Sequence[Any], question: Callable[[Any], str],
              data: Callable[[Any], Any], constants: Sequence[str]
              ) -> dict[str, list[tuple[str, Callable[[Any], tuple[str, str | None]]]]]:
    """Probe class -> [(label, task -> (answer, url))]."""
    space = _space(tasks, data)
    urls = [s for s in space if _URL.match(s)]
    homes = sorted({re.sub(r"^(https?://[^/]+).*$", r"\1/", u) for u in urls})
    listing = (homes[0] + "/".join(re.sub(r"^https?://", "", u).split("?")[0] for u in urls)
               if homes else "")
    words = [s for s in space if not _URL.match(s)][:_MAX_SPACE]

    def same(text: str) -> Callable[[Any], tuple[str, str | None]]:
        return lambda task: (text, None)

    def at(url: str) -> Callable[[Any], tuple[str, str | None]]:
        return lambda task: ("", url)

    return {
        "constants": [(repr(c), same(c)) for c in dict.fromkeys([*CONSTANT_TEXTS, *constants])],
        "answer_space": [("every leaf, one a line", same("\n".join(words))),
                         ("every leaf, comma-separated", same(", ".join(words)))],
        "candidates": [("the task's own leaves", lambda t: (", ".join(
            s for s in dict.fromkeys(_leaves(data(t))) if not _URL.match(s)), None))],
        "numbers": [("0..399", same(" ".join(str(i) for i in range(400))))],
        "echo": [("the question", lambda t: (question(t), None))],
        "huge": [("100,000 characters", same("a " * 50_000))],
        "claims": [(repr(c[:30]), same(c)) for c in CLAIMS],
        "navigate": [(u, at(u)) for u in [*homes, *list(dict.fromkeys(urls))[:_MAX_URLS],
                                           listing] if u],
    }


def check_scorer(name: str, tasks: Sequence[Any], score: Score, *,
                 question: Callable[[Any], str] = lambda t: "",
                 data: Callable[[Any], Any] = lambda t: t,
                 is_truth: Callable[[Any, str], bool] = lambda t, text: False,
                 constants: Sequence[str] = (), tolerance: float = DEFAULT_TOLERANCE,
                 skip: dict[str, str] | None = None) -> RewardCheckResult:
    """Probe ``score`` over every task of ``tasks`` (see the module); return the report.

    ``question(task)``: its text (the echo probe); ``data(task)``: where its leaves are read
    (the answer-space and candidate probes); ``is_truth(task, text)``: whether ``text`` is that
    task's true answer (not counted as a hack there); ``skip``: classes not run, with reasons.
    """
    if not tasks:
        raise ValueError(f"{name}: no tasks to probe")
    result = RewardCheckResult(name, len(tasks), tolerance, skipped=dict(skip or {}))
    result.baseline = sum(score(t, "", None) for t in tasks) / len(tasks)
    for kind, variants in _variants(tasks, question, data, constants).items():
        if kind in result.skipped:
            continue
        out = ProbeResult(f"scorer {kind}", kind, mean_reward=result.baseline,
                          variant="(no variant applies)")
        for label, build in variants:
            total = 0.0
            for task in tasks:
                answer, url = build(task)
                got = score(task, answer, url)
                if got > 0 and answer and is_truth(task, answer):
                    got = score(task, "", None)  # the task's own answer: its base rate
                total += got
            mean = total / len(tasks)
            if mean > out.mean_reward or out.variant == "(no variant applies)":
                out.mean_reward, out.variant = mean, label
        if out.mean_reward > result.baseline + tolerance:
            out.passed = False
            out.reason = (f"earned {out.mean_reward:.3f} with {out.variant[:80]!r} over "
                          f"{len(tasks)} tasks; doing nothing earns {result.baseline:.3f}")
        result.probes.append(out)
    return result


__all__ = ["Score", "check_scorer"]
