"""Summarised context (SUPO): the policy rewrites its own history when the context grows too long.

Long-horizon episodes outgrow any context window. With :class:`SummaryConfig` set on
``RolloutConfig(summary=...)``, an episode whose next observation would push the current context
over ``budget`` tokens does not append it. Instead it:

1. appends the summary request (``instruction``, a user message) and lets the policy generate the
   summary: ordinary model tokens (loss mask 1, behaviour log-probs, versions), at most
   ``max_tokens`` of them;
2. closes the current context as a *segment* of the trajectory
   (:attr:`agentgym.rollout.Trajectory.segments`), exact tokens and messages kept;
3. starts a new context: the episode's first prompt (system + the first observation, which
   states the task; the very same ids), the summary as an assistant turn (the exact ids the
   policy generated, now prompt: loss mask 0), then the withheld observation, appended as a
   ``ChatFormat`` delta like any other. Nothing generated is re-tokenised.

An episode summarises at most ``max_summaries`` times; the next time the budget is reached it is
truncated with the reason ``context budget ...``. Each context is still bounded by
``RolloutConfig.max_tokens`` (the request and the summary must fit under it).

An env can ask for it on its own (any family): a reset ``info`` with ``context == "summarize"``
turns summaries on for that episode (``RolloutConfig.summary``, else :data:`DEFAULT_SUMMARY`),
``info["context_budget"]`` (reset or step) sets the budget (below the run's own, when it has
one: an env may ask for summaries sooner, never later), and a step ``info`` with
``context == "summarize"`` asks for a summary before that step's observation whatever the length.

A policy without a tokenizer (text only) has no exact ids: the budget then counts an estimate,
the characters of the context's messages over :data:`CHARS_PER_TOKEN`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..errors import ConfigError

SUMMARIZE = "summarize"
"""The value of ``info["context"]`` with which an env asks for summarised context."""
CHARS_PER_TOKEN = 4
"""Characters per token assumed when the policy has no tokenizer."""
INSTRUCTION = (
    "Your context is full. Write a short summary of the task and of everything you found so "
    "far that you still need; the summary will replace this conversation, then you continue.")


@dataclass(frozen=True)
class SummaryConfig:
    """When to ask the policy for a summary, with what request, and how often at most."""

    budget: int = 2048
    """Context length in tokens (prompt, generated and env tokens) that triggers a summary:
    the next observation is withheld when it would take the context past it."""
    instruction: str = INSTRUCTION
    """The summary request appended as a user message."""
    max_tokens: int = 256
    """Most tokens of one summary."""
    max_summaries: int = 4
    """Summaries per episode; reaching the budget once more truncates the episode."""

    def __post_init__(self) -> None:
        for name in ("budget", "max_tokens", "max_summaries"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"summary {name} must be an integer of at least 1, got {value!r}")
        if not self.instruction.strip():
            raise ConfigError("summary instruction must not be empty")


DEFAULT_SUMMARY = SummaryConfig()
"""Used when an env asks for summaries and the rollout config sets none."""


def summary_for(info: dict[str, Any], current: SummaryConfig | None,
                configured: SummaryConfig | None = None) -> SummaryConfig | None:
    """The summary setting after an env ``info``: an env may turn summaries on or set the budget.

    ``configured`` is the run's own setting: an env may lower its budget (summarise sooner),
    never raise it. A malformed ``context_budget`` (not a positive integer) is ignored: the
    env's info is data.
    """
    if info.get("context") == SUMMARIZE and current is None:
        current = DEFAULT_SUMMARY
    budget = info.get("context_budget")
    if current is None or isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        return current
    if configured is not None:
        budget = min(budget, configured.budget)
    return current if budget == current.budget else replace(current, budget=budget)


def request_message(config: SummaryConfig) -> dict[str, Any]:
    """The user message that asks for the summary (marked ``summary_request`` for viewers)."""
    return {"role": "user", "content": config.instruction, "summary_request": True}


def summary_message(text: str) -> dict[str, Any]:
    """The assistant message that holds a summary (marked ``summary``)."""
    return {"role": "assistant", "content": text, "summary": True}


def estimated_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens of ``messages`` estimated from their characters (policies without a tokenizer)."""
    chars = sum(len(m["content"]) for m in messages if isinstance(m.get("content"), str))
    return chars // CHARS_PER_TOKEN


__all__ = ["CHARS_PER_TOKEN", "DEFAULT_SUMMARY", "SUMMARIZE", "SummaryConfig", "estimated_tokens",
           "request_message", "summary_for", "summary_message"]
