"""SQuAD normalisation, exact match and F1, checked by hand."""

from __future__ import annotations

import pytest

from agentgym.envs.search.scoring import exact_match, f1_score, normalize_answer, score_answer


def test_normalize_answer():
    assert normalize_answer("  The Guild of  Tallmere! ") == "guild of tallmere"
    assert normalize_answer("An apple, a pear.") == "apple pear"
    assert normalize_answer("1,657,000") == "1657000"


def test_exact_match_uses_any_alias():
    assert exact_match("the Vennholt", ["Alaric Vennholt", "Vennholt"]) == 1.0
    assert exact_match("Alaric", ["Alaric Vennholt", "Vennholt"]) == 0.0


def test_f1_by_hand():
    # pred {guild, of, tallmere, north} vs gold {guild, of, tallmere}: p=3/4, r=1 -> 6/7
    assert f1_score("Guild of Tallmere North", ["The Guild of Tallmere"]) == pytest.approx(6 / 7)
    assert f1_score("nothing alike", ["Tallmere"]) == 0.0
    assert f1_score("", [""]) == 0.0  # an empty answer matches nothing (issue 24)
    assert score_answer("1843", ["1843"], "f1") == 1.0
    with pytest.raises(ValueError):
        score_answer("x", ["x"], "bleu")
