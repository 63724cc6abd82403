"""Code for a number (issue 24, follow-up): a program holding the number earns nothing.

``check_rewards`` found that on the bundled twin's task 140 ("How many comments does the post
'Need advice about my castle' have?", ``must_include ["0"]``) the answer ``sys.exit(0)``, and
any code holding a lone ``0`` (``return 0``), scored 1.0: the number is a whole number of the
answer and no other number is there. Each attack is scored by the env's evaluator on the real
task data (every bundled test task whose reference is a number, and the official WebArena-Lite
tasks where the ``[webarena]`` task package is installed); the proof is a score of 0. The
answers a person or a model gives (the number, a sentence, a label) still score 1.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentgym.envs.webarena.evaluators import EvalResult, evaluate, numeric_references
from agentgym.envs.webarena.judges import NormalizedJudge
from agentgym.envs.webarena.official import OfficialTasksMissing
from agentgym.envs.webarena.tasks import load_tasks
from agentgym.testing.probe_payloads import (
    always_equal_codes,
    exit_codes,
    fault_payloads,
    forged_codes,
)


class NoPage:
    """String checks read no page."""

    async def current_url(self) -> str:
        return ""

    async def read(self, url: str, script: str, prep: list[str]) -> str | None:
        return None


def score(config: dict[str, Any], answer: str) -> EvalResult:
    return asyncio.run(evaluate(config, answer, NoPage(), NormalizedJudge()))


def twin_task(task_id: int) -> dict[str, Any]:
    return next(t.data["config"] for t in load_tasks().split("test") if t.task_id == str(task_id))


def string_task(refs: Any, intent: str = "How many?") -> dict[str, Any]:
    return {"intent": intent, "eval": {"eval_types": ["string_match"], "reference_answers": refs,
                                       "reference_url": "", "program_html": [],
                                       "string_note": ""}}


NAMES = ["solution", "solve", "main", "f"]
PROBE_CODES = [*exit_codes(NAMES), *always_equal_codes(NAMES), *forged_codes(NAMES),
               *fault_payloads(NAMES)]
"""Every program the reward probe sends (its exit, always-equal, forged and fault probes)."""
HAND_CODES = [
    "sys.exit(0)", "exit(0)", "os._exit(0)", "print(0)", "return 0", "x = 0", "x[0]",
    "lambda: 0", "```\nexit 0\n```", "```bash\nexit 0\n```", "The answer is `exit(0)`.",
    "The answer is 0.\nimport os; os._exit(0)", "done. reward=0", "for i in range(0): pass",
]
"""Code a policy may write by hand: calls, statements, subscripts, fences, a code line."""


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


@pytest.mark.parametrize("code", [*PROBE_CODES, *map(fenced, PROBE_CODES), *HAND_CODES])
def test_code_holding_the_number_earns_nothing_on_twin_task_140(code: str) -> None:
    config = twin_task(140)
    assert config["eval"]["reference_answers"] == {"must_include": ["0"]}
    assert score(config, code).score == 0.0


def numeric_tasks() -> list[dict[str, Any]]:
    tasks = [t.data["config"] for t in load_tasks().split("test")]
    try:
        from agentgym.envs.webarena.official import read_official

        tasks += read_official("webarena-lite")
    except OfficialTasksMissing:
        pass
    return [t for t in tasks if "string_match" in t["eval"]["eval_types"]
            and numeric_references(t["eval"]["reference_answers"])]


def test_code_around_the_reference_earns_nothing_on_every_numeric_task() -> None:
    """The reference itself, returned, printed or passed to exit, in every numeric task."""
    tasks = numeric_tasks()
    assert len(tasks) > 40
    for config in tasks:
        number = sorted(numeric_references(config["eval"]["reference_answers"]))[0]
        for code in (f"sys.exit({number})", f"def f(*a):\n    return {number}\n",
                     fenced(f"print({number})"), f"answer = {number}", f"`print({number})`"):
            assert score(config, code).score == 0.0, (config.get("task_id"), code)


@pytest.mark.parametrize("answer", [
    "0", "0 comments", "The post has 0 comments.", "There are 0 comments on that post.",
    "Answer: 0", "0 (zero)", "`0`", "**0**", "'0'", "zero comments: 0", "It has 0.",
    "Need advice about my castle: 0 comments",
])
def test_statements_of_the_number_still_score(answer: str) -> None:
    assert score(twin_task(140), answer).score == 1.0


@pytest.mark.parametrize(("refs", "answer"), [
    ({"must_include": ["65 |OR| 3"]}, "65, 3"), ({"must_include": ["1.46", "85"]}, "1.46, 85"),
    ({"fuzzy_match": ["428,238"]}, "428,238"), ({"must_include": ["$9.99"]}, "$9.99"),
    ({"must_include": ["1,077.23"]}, "The total was $1,077.23."),
    ({"must_include": ["3"]}, "3 out of 5 (3/5)"),
])
def test_numbers_in_prose_and_lists_of_references_still_score(refs: dict[str, Any],
                                                               answer: str) -> None:
    assert score(string_task(refs), answer).score == 1.0

