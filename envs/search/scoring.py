"""Answer scoring after SQuAD normalisation: exact match and word-level F1.

``normalize_answer`` lower-cases, drops punctuation and the articles ``a``, ``an``, ``the`` and
collapses white space, as the SQuAD v1.1 evaluation script (and Search-R1's ``qa_em.py``) do.
A prediction is scored against every gold answer and the best score counts.

Two guards keep degenerate answers at 0 (see ``tests/security/test_rewards_search.py``):

- an answer that normalises to nothing matches nothing, even a gold answer that also normalises
  to nothing (``"The"``, ``"!!"``);
- word F1 pays for short answers only: a prediction longer than ``len(gold) + 2`` words
  scores 0 against that gold. Without it a list of candidates or the question echoed
  ("Which river flows through X?") earns partial credit on every question, which a policy
  under RL learns to exploit; a concise answer with two extra words keeps its F1. Hedging
  between two or three candidates inside that bound still earns partial F1 (a limit of any
  partial-credit metric); the registered envs reward exact match.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    text = text.lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def max_f1_words(gold_words: int) -> int:
    """The longest prediction, in normalised words, that word F1 scores against a gold answer
    of ``gold_words`` words (longer ones score 0: hedging, lists, echoed questions)."""
    return gold_words + 2


def exact_match(prediction: str, golds: Iterable[str]) -> float:
    """1.0 when the normalised prediction is not empty and equals a normalised gold answer."""
    pred = normalize_answer(prediction)
    return float(bool(pred) and any(pred == normalize_answer(g) for g in golds))


def _f1(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if not pred_tokens or not gold_tokens or len(pred_tokens) > max_f1_words(len(gold_tokens)):
        return 0.0
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def f1_score(prediction: str, golds: Iterable[str]) -> float:
    """The best word-level F1 of the normalised prediction against any gold answer (0 for a
    prediction longer than :func:`max_f1_words` of that gold)."""
    pred = normalize_answer(prediction).split()
    return max((_f1(pred, normalize_answer(g).split()) for g in golds), default=0.0)


def score_answer(prediction: str, golds: Iterable[str], metric: str = "em") -> float:
    """``em`` or ``f1`` of ``prediction`` against ``golds``."""
    golds = list(golds)
    if metric == "em":
        return exact_match(prediction, golds)
    if metric == "f1":
        return f1_score(prediction, golds)
    raise ValueError(f"metric must be 'em' or 'f1', not {metric!r}")
