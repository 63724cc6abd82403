"""Price lookup with a calculator: a multi-turn tool env small enough for SmolLM2-135M on a CPU.

Each task asks "How much do Q ITEMs cost?". The unit prices are private to the task: the only
way to learn one is the ``lookup`` tool. A successful episode therefore takes at least two tool
calls (``lookup``, then ``answer``); the expert takes three::

    lookup(pen)      -> 4
    calc(4*3)        -> 12
    answer(12)       -> correct

Reward 1 (success) when the answer equals ``Q * price`` and ``lookup`` was called for that item
in the episode; otherwise 0. The answer is the one number the value states besides the quantity
and the price (``12``, ``4 * 3 = 12``): a list of totals states none and earns nothing.
Actions are the compact one-line form ``tool(argument)`` shown above, or any standard tool-call
format (Hermes ``<tool_call>``, OpenAI, ReAct). Malformed actions, unknown tools and bad
expressions give error observations, never exceptions.

Splits: one task per (item, quantity) pair, 128 in all, with seeded prices; 40 pairs are held
out as ``test`` (no question appears in both splits).
"""

from __future__ import annotations

import ast
import operator
import random
import re
from typing import Any

from agentgym import Task, TaskSet, TaskToolEnv, ToolCall, ToolError, parse_tool_calls

from ..arith.env import read_answer

ITEMS = ("pen", "cup", "hat", "box", "map", "key", "bag", "jar", "fan", "mug", "egg", "toy",
         "pot", "kite", "lamp", "book")
TEST_TASKS = 40
PROMPT = "How much do {q} {items} cost?"
INSTRUCTIONS = (
    "You are a shop assistant. Tools: lookup(item) gives the price of one item, "
    "calc(expression) does arithmetic, answer(number) gives the final answer. "
    "Write exactly one tool call per turn, like lookup(pen)."
)
_COMPACT = re.compile(r"^\s*([A-Za-z_]\w*)\s*\((.*)\)\s*$")
_ARG_NAME = {"lookup": "item", "calc": "expression", "answer": "value"}
_OPS: dict[type, Any] = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                         ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv}


def load_tasks() -> TaskSet:
    """128 tasks, one per (item, quantity 2..9), seeded prices 2..9; 40 of them form ``test``."""
    rng = random.Random(0)
    pairs = [(item, q) for item in ITEMS for q in range(2, 10)]
    held_out = set(rng.sample(pairs, TEST_TASKS))
    tasks = []
    for item, q in pairs:
        prices = {o: rng.randint(2, 9) for o in ITEMS}
        price = prices[item]
        tasks.append(Task(
            f"shop-{item}-{q}",
            "test" if (item, q) in held_out else "train",
            PROMPT.format(q=q, items=plural(item)),
            {"item": item, "quantity": q, "prices": prices,
             "answer": q * price},
        ))
    return TaskSet(sorted(tasks, key=lambda t: t.task_id), name="shop")


def plural(item: str) -> str:
    """``box`` -> ``boxes``, ``pen`` -> ``pens``."""
    return item + ("es" if item.endswith("x") else "s")


def calculate(expression: str) -> int | float:
    """Evaluate ``+ - * / //`` over integers (no names, no calls); raises ToolError otherwise."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as e:
        raise ToolError(f"cannot parse expression {expression!r}") from e

    def walk(node: ast.AST) -> int | float:
        value = node.value if isinstance(node, ast.Constant) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = walk(node.left), walk(node.right)
            if abs(left) > 1e12 or abs(right) > 1e12:
                raise ToolError("number too large")
            try:
                return _OPS[type(node.op)](left, right)  # type: ignore[no-any-return]
            except ZeroDivisionError as e:
                raise ToolError("division by zero") from e
        raise ToolError(f"only numbers and + - * / are allowed, not {expression!r}")

    value = walk(tree.body)
    return int(value) if float(value).is_integer() else round(value, 6)


def compact_call(text: str) -> ToolCall | None:
    """``name(argument)`` on the reply's first non-empty line as a call, else None."""
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    m = _COMPACT.match(line)
    if m is None:
        return None
    name, arg = m.group(1), m.group(2).strip().strip("\"'")
    return ToolCall(name, {_ARG_NAME.get(name, "value"): arg})


class ShopEnv(TaskToolEnv):
    """Find a unit price with ``lookup``, multiply with ``calc``, give it with ``answer``."""

    fork_fields = ("looked_up",)
    """Forked by copying its state: the task's fields and the prices looked up so far."""

    instructions = INSTRUCTIONS

    def __init__(self, split: str = "train") -> None:
        super().__init__(load_tasks(), split)
        self.looked_up: set[str] = set()

    def make_tools(self) -> list[Any]:
        """``lookup``, ``calc`` and ``answer``."""
        return [self.lookup, self.calc, self.answer]

    def start(self, task: Task) -> str:
        """Show the question; forget earlier lookups."""
        self.looked_up = set()
        return task.prompt

    def parse_action(self, action: Any) -> list[ToolCall]:
        """Standard tool-call formats first, then the compact ``tool(argument)`` line."""
        calls = parse_tool_calls(action)
        if calls:
            return calls
        text = action if isinstance(action, str) else str(
            (action.get("content") if isinstance(action, dict) else "") or "")
        call = compact_call(text)
        return [call] if call is not None else []

    def no_call_message(self) -> str:
        """Observation for a turn without a tool call."""
        return "Error: write one tool call, like lookup(pen), calc(4*3) or answer(12)."

    def expert_actions(self, task: Task) -> list[str]:
        """The expert's three calls for ``task`` (the scripted policy plays them)."""
        item, q = task.data["item"], task.data["quantity"]
        price = task.data["prices"][item]
        return [f"lookup({item})", f"calc({price}*{q})", f"answer({price * q})"]

    def lookup(self, item: str) -> str:
        """Price of one item, in dollars.

        Args:
            item: The item's name, e.g. pen.
        """
        if self.task is None:
            return "no task"
        name = item.strip().lower()
        name = next((i for i in ITEMS if name == plural(i)), name)
        prices = self.task.data["prices"]
        if name not in prices:
            raise ToolError(f"unknown item {item!r}")
        self.looked_up.add(name)
        return str(prices[name])

    def calc(self, expression: str) -> str:
        """Evaluate an arithmetic expression such as 4*3.

        Args:
            expression: Numbers with + - * /.
        """
        return str(calculate(expression))

    def answer(self, value: str) -> str:
        """Give the final total; ends the episode.

        Args:
            value: The total cost, a number (or a sum such as ``4 * 3 = 12``).
        """
        task = self.task
        if task is None:
            return "no task"
        item = task.data["item"]
        got = read_answer(str(value), (task.data["quantity"], task.data["prices"][item]))
        looked = task.data["item"] in self.looked_up
        correct = got == task.data["answer"] and looked
        self.finish(1.0 if correct else 0.0, success=correct, answer=got, looked_up=looked)
        if correct:
            return "correct"
        return "wrong" if looked else "wrong: look the price up first"


__all__ = ["ShopEnv", "calculate", "compact_call", "load_tasks", "plural"]
