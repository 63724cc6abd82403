"""Task evaluators in OSWorld's shape: a *getter* reads state from the desktop, a *metric*
compares it with the expected value.

``evaluator = {"func": METRIC, "result": {"type": GETTER, ...}, "expected": {"type": "rule",
"value": ...}}``. Getters: ``app_state`` (a key path in a Tk app's state dump, kept in the
desktop's private folder that the model's apps cannot reach), ``file`` (a text file in the
desktop's home, read without following symlinks), ``converted_csv`` (a spreadsheet converted
with ``ssconvert``).
Metrics: ``exact_match``, ``text_equal`` (trailing whitespace ignored), ``contains``, and
``infeasible`` (1 only when the episode ended with ``FAIL``). The conversion runs in the
desktop's jail, in a work folder the model's apps do not see.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentgym.errors import InfrastructureError
from agentgym.sandbox import check_relative

from .tasks import STATE_FILE

if TYPE_CHECKING:
    from agentgym.sandboxes.desktop import DesktopSandbox


@dataclass
class Evaluation:
    """The score of one episode and what was compared."""

    score: float
    result: Any = None
    expected: Any = None


MISSING = object()


def _state(desktop: DesktopSandbox, spec: dict[str, Any]) -> Any:
    raw = desktop.read_home_file(STATE_FILE, private=True)
    try:
        value: Any = json.loads(raw) if raw is not None else MISSING
    except ValueError:
        return MISSING
    if value is MISSING:
        return MISSING
    for part in str(spec.get("key", "")).split("."):
        if part:
            value = value.get(part, MISSING) if isinstance(value, dict) else MISSING
    return value


def _file(desktop: DesktopSandbox, spec: dict[str, Any]) -> Any:
    raw = desktop.read_home_file(str(spec["path"]))  # never follows a planted symlink
    try:
        return raw.decode("utf-8") if raw is not None else MISSING
    except UnicodeDecodeError:
        return MISSING


def _converted_csv(desktop: DesktopSandbox, spec: dict[str, Any]) -> Any:
    source = desktop.home / check_relative(str(spec["path"]))
    if not source.is_file():
        return MISSING
    run = desktop.run(["ssconvert", str(source), "out.csv"], fetch=["out.csv"])
    if "out.csv" not in run.files:
        if run.status.value == "sandbox_error":
            raise InfrastructureError(f"ssconvert could not run: {run.error}")
        return MISSING
    return run.files["out.csv"].decode(errors="replace")


GETTERS: dict[str, Callable[[DesktopSandbox, dict[str, Any]], Any]] = {
    "app_state": _state, "file": _file, "converted_csv": _converted_csv,
}


def _text_equal(result: Any, expected: Any) -> bool:
    return isinstance(result, str) and result.rstrip() == str(expected).rstrip()


METRICS: dict[str, Callable[[Any, Any], bool]] = {
    "exact_match": lambda r, e: r == e,
    "text_equal": _text_equal,
    "contains": lambda r, e: isinstance(r, str) and str(e) in r,
}


def evaluate(desktop: DesktopSandbox, evaluator: dict[str, Any], *, failed: bool) -> Evaluation:
    """Score the desktop's state for ``evaluator``; ``failed`` says the agent answered FAIL."""
    func = evaluator.get("func")
    if func == "infeasible":
        return Evaluation(1.0 if failed else 0.0, "FAIL" if failed else "not FAIL", "FAIL")
    if failed:
        return Evaluation(0.0, "FAIL", None)
    spec = evaluator.get("result", {})
    getter, metric = GETTERS.get(spec.get("type")), METRICS.get(str(func))
    if getter is None or metric is None:
        raise ValueError(f"unknown getter {spec.get('type')!r} or metric {func!r}")
    expected = evaluator.get("expected", {}).get("value")
    result = getter(desktop, spec)
    if result is MISSING:
        return Evaluation(0.0, None, expected)
    return Evaluation(1.0 if metric(result, expected) else 0.0, result, expected)


__all__ = ["GETTERS", "METRICS", "Evaluation", "evaluate"]
