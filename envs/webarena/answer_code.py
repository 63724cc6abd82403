"""Whether an answer is code: the evaluators' test before a number in it may count as stated.

Code is full of small numbers (``sys.exit(0)``, ``return 0``, ``x[1]``), so a program holds the
answer to many "how many" questions by accident; a policy under RL finds that (issue 24). An
answer is **code** when

- it holds a fenced block (a line starting with three backticks), or
- Python parses one of its parts into a program that does something: a call of a name or an
  attribute, a subscript, an import, a definition (``def``, ``class``, ``lambda``), an
  assignment with a value, or any other statement (``return``, ``raise``, ``for``, ``if``...).
  The parts are the whole answer, each line, each sentence and each inline code span.

Prose never parses as Python (two words in a row are a syntax error), so a sentence is never
code. What parses but does nothing is kept: a number (``0``), a label (``Answer: 0`` is an
annotation without a value), a list of numbers (``65, 3``), a fraction (``3/5``), a word, a
remark in brackets after a number (``0 (zero)``). Shell and SQL do not parse as Python and are
not recognised outside a fence (``exit 0`` in plain text is not code).
"""

from __future__ import annotations

import ast
import re
import warnings

MAX_PARSED = 20_000
"""Characters of one part that are parsed; a longer part is judged by its first ones."""
_FENCE = re.compile(r"^\s*```", re.MULTILINE)
_SPAN = re.compile(r"`([^`\n]+)`")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_INERT = (ast.Module, ast.Expr, ast.Constant, ast.Name, ast.Attribute, ast.Load, ast.Store,
          ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.Tuple, ast.List, ast.Set,
          ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
"""Nodes of text that only names values: numbers, words, labels, lists, fractions."""


def _code_node(tree: ast.AST) -> ast.AST | None:
    """The first node of ``tree`` that does something, or None."""
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and node.value is None and node.simple:
            continue  # "Answer: 0" -- a label, not an assignment
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Constant):
            continue  # "0 (zero)" -- a remark after a number, not a call
        if not isinstance(node, _INERT):
            return node
    return None


def _parse(text: str) -> ast.AST | None:
    text = text.strip()[:MAX_PARSED]
    if not text:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes in a string literal warn
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def code_in(answer: str) -> str:
    """What makes ``answer`` code (``"a call"``, ``"a fenced block"``...), or ``""``."""
    if _FENCE.search(answer):
        return "a fenced code block"
    lines = answer.splitlines()
    parts = [answer, *lines, *_SPAN.findall(answer)]
    parts += [s for line in lines for s in _SENTENCE.split(line)]
    for part in dict.fromkeys(parts):
        tree = _parse(part)
        node = _code_node(tree) if tree is not None else None
        if node is not None:
            return f"Python ({type(node).__name__}) in {part.strip()[:60]!r}"
    return ""


__all__ = ["MAX_PARSED", "code_in"]
