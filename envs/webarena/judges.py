"""Judges for ``fuzzy_match`` answers: deterministic normalised matching, or an LLM.

WebArena-Lite asks ``gpt-4-1106-preview`` whether an answer is semantically equal to the
reference ("correct" scores 1; "partially correct" and "incorrect" score 0) and, for ``"N/A"``
references, whether the answer says the task cannot be done. :class:`NormalizedJudge` (the
default) answers both questions without a model; :class:`PolicyJudge` asks any agentgym policy
(``make_policy("openai:...")``, ``"hf:..."``) with WebArena's prompts.
"""

from __future__ import annotations

import re
import string
from typing import Any, Protocol

_UNACHIEVABLE = ("n/a", "not available", "cannot", "can't", "unable", "no such", "not exist",
                 "doesn't exist", "does not exist", "not possible", "impossible", "none found",
                 "no matching", "not found")


def normalize(text: str) -> str:
    """Lowercase, punctuation removed (except in numbers), whitespace collapsed."""
    text = text.lower().replace("&", " and ")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    keep = re.sub(rf"[{re.escape(string.punctuation.replace('.', ''))}]", " ", text)
    keep = re.sub(r"\.(?!\d)", " ", keep)
    return " ".join(keep.split())


class Judge(Protocol):
    """Decides fuzzy answers."""

    async def fuzzy(self, intent: str, references: list[str], prediction: str) -> float:
        """1.0 when ``prediction`` means the same as all of ``references``."""
        ...

    async def unachievable(self, intent: str, prediction: str) -> float:
        """1.0 when ``prediction`` says the task cannot be done."""
        ...


class NormalizedJudge:
    """Every normalised reference occurs, as whole words, in the normalised prediction."""

    async def fuzzy(self, intent: str, references: list[str], prediction: str) -> float:
        """See the class docstring."""
        pred = f" {normalize(prediction)} "
        return float(bool(references) and all(
            f" {normalize(ref)} " in pred for ref in references))

    async def unachievable(self, intent: str, prediction: str) -> float:
        """The prediction uses a phrase of refusal (``not available``, ``cannot``...)."""
        pred = prediction.lower()
        return float(any(p in pred for p in _UNACHIEVABLE))


FUZZY_PROMPT = """Help a teacher to grade the answer of a student given a question. Keep in mind \
that the student may have performed the task and the answer may state what was done.
question: {intent}
reference answer: {reference}
all the string 'N/A' that you see is a special sequence that means 'not achievable'
student answer: {prediction}
Conclude the judgement by "correct", "incorrect", or "partially correct"."""
UNACHIEVABLE_PROMPT = """task: {intent}
actual unachievable reason: the task is not achievable on this website
reported unachievable reasoning: {prediction}
Does the reported reasoning say the task cannot be done? Conclude with "same" or "different"."""


class PolicyJudge:
    """Asks an agentgym policy with WebArena-Lite's grading prompts (greedy, one turn)."""

    def __init__(self, policy: Any, max_tokens: int = 256) -> None:
        self.policy = policy
        self.max_tokens = max_tokens

    async def _ask(self, prompt: str) -> str:
        from agentgym.policies.base import SamplingParams

        gen = await self.policy.agenerate(
            [{"role": "system", "content": "You are a helpful assistant"},
             {"role": "user", "content": prompt}],
            sampling=SamplingParams(temperature=0.0, max_tokens=self.max_tokens))
        return str(gen.text).lower()

    async def fuzzy(self, intent: str, references: list[str], prediction: str) -> float:
        """"correct" scores 1; "partially correct" and "incorrect" score 0."""
        reply = await self._ask(FUZZY_PROMPT.format(
            intent=intent, reference=" |AND| ".join(references), prediction=prediction))
        if "partially correct" in reply or "incorrect" in reply:
            return 0.0
        return float("correct" in reply)

    async def unachievable(self, intent: str, prediction: str) -> float:
        """"same" scores 1."""
        reply = await self._ask(UNACHIEVABLE_PROMPT.format(intent=intent, prediction=prediction))
        return float("same" in reply and "different" not in reply)
