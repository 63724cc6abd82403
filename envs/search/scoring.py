"""Answer scoring after SQuAD normalisation: exact match and word-level F1.

``normalize_answer`` lower-cases, drops punctuation and the articles ``a``, ``an``, ``the`` and
collapses white space, as the SQuAD v1.1 evaluation script (and Search-R1's ``qa_em.py``) do.
A prediction is scored against every gold answer and the best score counts.
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


def exact_match(prediction: str, golds: Iterable[str]) -> float:
    """1.0 when the normalised prediction equals a normalised gold answer, else 0.0."""
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(g) for g in golds))


def _f1(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if not pred_tokens or not gold_tokens:
        return float(pred_tokens == gold_tokens)
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def f1_score(prediction: str, golds: Iterable[str]) -> float:
    """The best word-level F1 of the normalised prediction against any gold answer."""
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
