"""Judges for ``fuzzy_match`` checks: a strict offline matcher, or an LLM with WebArena's prompts.

WebArena-Lite asks ``gpt-4-1106-preview`` three questions: whether an answer means the same as
each reference in turn ("correct" scores 1; "partially correct" and "incorrect" score 0), whether an
unachievable task's reported reason matches its ``string_note`` ("same" scores 1), and, for a
page check, whether the selected text means the same as the references joined by ``", "``.

:class:`PolicyJudge` asks any agentgym policy (``make_policy("openai:http://...")``) with
WebArena-Lite's exact prompts. :class:`NormalizedJudge`, the default when no LLM is configured,
is strict and says so: an answer must contain every reference as whole words after
normalisation and add at most :data:`EXTRA_WORDS` words to them, a page must contain every
reference; it cannot
recognise a paraphrase, a synonym, a unit converted or a date rewritten (those score 0), and it
cannot compare reasons, so an unachievable task is only solved by the answer ``N/A`` itself
(which the evaluator checks before asking the judge).
"""

from __future__ import annotations

import re
import string
from typing import Any, Protocol

EXTRA_WORDS = 12
"""Words an answer may add to a fuzzy reference under the offline judge ("It is X.")."""


def normalize(text: str) -> str:
    """Lowercase, punctuation removed (except in numbers), whitespace collapsed."""
    text = text.lower().replace("&", " and ")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    keep = re.sub(rf"[{re.escape(string.punctuation.replace('.', ''))}]", " ", text)
    keep = re.sub(r"\.(?!\d)", " ", keep)
    return " ".join(keep.split())


def contains_words(reference: str, text: str) -> bool:
    """``reference`` occurs as whole words in ``text``, both normalised."""
    ref = normalize(reference)
    return bool(ref) and f" {ref} " in f" {normalize(text)} "


class Judge(Protocol):
    """Decides the ``fuzzy_match`` checks."""

    async def fuzzy(self, intent: str, references: list[str], prediction: str) -> float:
        """1.0 when the answer ``prediction`` means the same as each of ``references``."""
        ...

    async def unachievable(self, intent: str, reason: str, prediction: str) -> float:
        """1.0 when ``prediction`` says the task cannot be done for the reason ``reason``."""
        ...

    async def page(self, intent: str, references: list[str], content: str) -> float:
        """1.0 when the page text ``content`` holds what ``references`` say."""
        ...


class NormalizedJudge:
    """The strict offline judge (see the module docstring for what it cannot judge)."""

    async def fuzzy(self, intent: str, references: list[str], prediction: str) -> float:
        """Every reference as whole words, and at most :data:`EXTRA_WORDS` more words."""
        extra = len(normalize(prediction).split()) - sum(
            len(normalize(r).split()) for r in references)
        return float(bool(references) and extra <= EXTRA_WORDS
                     and all(contains_words(r, prediction) for r in references))

    async def unachievable(self, intent: str, reason: str, prediction: str) -> float:
        """0: a reason cannot be compared without a model (only ``N/A`` itself scores)."""
        return 0.0

    async def page(self, intent: str, references: list[str], content: str) -> float:
        """Every reference occurs as whole words in the page text."""
        return float(bool(references) and all(contains_words(r, content) for r in references))


FUZZY_PROMPT = (
    "Help a teacher to grade the answer of a student given a question. Keep in mind that the "
    "student may use different phrasing or wording to answer the question. The goal is to "
    "evaluate whether the answer is semantically equivalent to the reference answer.\n"
    "question: {intent}\nreference answer: {reference}\n"
    "all the string 'N/A' that you see is a special sequence that means 'not achievable'\n"
    "student answer: {prediction}\n"
    "Conclude the judgement by correct/incorrect/partially correct.")
UNACHIEVABLE_PROMPT = (
    "task: {intent}\nactual unachievable reason: {reason}\n"
    "reported unachievable reason: {prediction}\n"
    "The task described above is inherently unachievable due to the reason specified under "
    "'actual unachievable reason'. An individual previously attempted this task and was unable "
    "to complete it. They provided a reason for their failure, which is listed under 'reported "
    "unachievable reason'. Your role is to review both the actual and reported reasons. "
    "Determine if the reported reason aligns with the actual reason, even if implicitly. If the "
    "stated reason is in line with the actual reason, respond with 'same'. Otherwise, respond "
    "with 'different'.")


class PolicyJudge:
    """Asks an agentgym policy with WebArena-Lite's grading prompts (greedy, one turn)."""

    def __init__(self, policy: Any, max_tokens: int = 768) -> None:
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
        """One question per reference (WebArena's loop): each must be "correct"."""
        for reference in references:
            if not await self._correct(intent, reference, prediction):
                return 0.0
        return float(bool(references))

    async def _correct(self, intent: str, reference: str, prediction: str) -> bool:
        """"correct" passes; "partially correct", "incorrect" or no verdict fail."""
        reply = await self._ask(FUZZY_PROMPT.format(
            intent=intent, reference=reference, prediction=prediction))
        if "partially correct" in reply or "incorrect" in reply:
            return False
        return "correct" in reply

    async def unachievable(self, intent: str, reason: str, prediction: str) -> float:
        """"same" (and not "different") scores 1."""
        reply = await self._ask(UNACHIEVABLE_PROMPT.format(
            intent=intent, reason=reason, prediction=prediction))
        return float("same" in reply and "different" not in reply)

    async def page(self, intent: str, references: list[str], content: str) -> float:
        """The fuzzy question with the references joined by ``", "``, as WebArena asks it."""
        return float(bool(references)
                     and await self._correct(intent, ", ".join(references), content))
