"""One-digit addition: the smallest env where SmolLM2-135M learns under GRPO on a CPU.

Each task asks "Compute a + b." for digits ``a, b`` in 0..9 (100 ordered pairs). A fixed seeded
shuffle holds 30 pairs out as the ``test`` split; the other 70 are ``train``; the splits share no
pair. The episode is one turn: the reply is the answer. It may be plain text or an ``answer``
tool call; reward 1 if the number it states (:func:`read_answer`) equals ``a + b``, else 0.

The stated number is the reply's only number, else the one number left once the operands are
set aside (``4 + 3 = 7`` and ``The sum of 4 and 3 is 7`` state 7). A reply with no such number
or several candidates states none: echoing the question ("Compute 0 + 5.", whose last number is
the sum) or listing sums earns nothing (``tests/security/test_rewards_arith.py``).

Base rates of SmolLM2-135M-Instruct on the test split are in ``docs/training.md``.
"""

from __future__ import annotations

import random
import re
from typing import Any

from agentgym import Task, TaskSet, TaskToolEnv, ToolCall, parse_tool_calls

TEST_PAIRS = 30
PROMPT = "Compute {a} + {b}. Reply with only the number."
_INT = re.compile(r"-?\d+")


def load_tasks() -> TaskSet:
    """All 100 one-digit pairs; 30 of them (seeded shuffle) form the held-out ``test`` split."""
    pairs = [(a, b) for a in range(10) for b in range(10)]
    held_out = set(random.Random(0).sample(pairs, TEST_PAIRS))
    return TaskSet(
        (
            Task(
                f"add-{a}-{b}",
                "test" if (a, b) in held_out else "train",
                PROMPT.format(a=a, b=b),
                {"a": a, "b": b, "answer": a + b},
            )
            for a, b in pairs
        ),
        name="arith",
    )


def read_number(text: str) -> int | None:
    """The last integer written in ``text``, or None when there is none."""
    found = _INT.findall(text.replace(",", ""))
    return int(found[-1]) if found else None


def read_answer(text: str, operands: tuple[int, ...]) -> int | None:
    """The number ``text`` states as the answer, or None when it states none or several.

    The only integer written; else, with one occurrence of each operand set aside, the integer
    left (repeated or not). The operands are what a reply restates, as in ``3 + 4 = 7``.
    """
    found = [int(n) for n in _INT.findall(text.replace(",", " "))]
    if len(found) == 1:
        return found[0]
    rest = list(found)
    for operand in operands:
        if operand in rest:
            rest.remove(operand)
    return rest[0] if rest and len(set(rest)) == 1 else None


class ArithEnv(TaskToolEnv):
    """Answer "Compute a + b." in one turn, as plain text or with the ``answer`` tool."""

    fork_fields = ()
    """Forked by copying its state: the task's fields are all of it."""

    instructions = "You are a calculator. Reply with only the number."

    def __init__(self, split: str = "train") -> None:
        super().__init__(load_tasks(), split)

    def make_tools(self) -> list[Any]:
        """The single ``answer`` tool."""
        return [self.answer]

    def start(self, task: Task) -> str:
        """Show the question."""
        return task.prompt

    def parse_action(self, action: Any) -> list[ToolCall]:
        """Tool calls when the reply holds some; otherwise the whole text is the answer."""
        calls = parse_tool_calls(action)
        if calls:
            return calls
        text = action if isinstance(action, str) else str(action.get("content") or "")
        return [ToolCall("answer", {"value": text})]

    def answer(self, value: str) -> str:
        """Give the final answer; ends the episode.

        Args:
            value: The sum, as a number (extra words are ignored; the one number besides
                the operands counts).
        """
        task = self.task
        if task is None:  # unreachable through step(); kept for direct tool use
            return "no task"
        got = read_answer(str(value), (task.data["a"], task.data["b"]))
        correct = got == task.data["answer"]
        self.finish(1.0 if correct else 0.0, success=correct, answer=got)
        return "correct" if correct else f"wrong: {got} (expected {task.data['answer']})"


__all__ = ["ArithEnv", "load_tasks", "read_answer", "read_number"]
