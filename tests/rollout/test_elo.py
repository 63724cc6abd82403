"""Win rates and Elo ratings on hand-checked outcomes."""

from __future__ import annotations

import pytest

from agentgym.rollout.elo import elo_ratings, outcome_score, win_rates


def test_win_rates_count_from_either_side() -> None:
    games = [("ckpt", "scripted", 1.0), ("ckpt", "scripted", 0.5), ("scripted", "ckpt", 1.0),
             ("ckpt", "start", 1.0), ("other", "start", 1.0)]
    rates = win_rates(games, "ckpt")
    assert (rates["scripted"].wins, rates["scripted"].draws, rates["scripted"].losses) == (1, 1, 1)
    assert rates["scripted"].rate == pytest.approx(0.5)
    assert rates["start"].rate == 1.0 and rates["start"].games == 1
    assert [outcome_score(o) for o in ("win", "draw", "loss", "forfeit")] == [1, 0.5, 0, 0]


def test_elo_orders_players_and_pins_the_anchor() -> None:
    # strong beats scripted 3 of 4, scripted beats weak 3 of 4: strong > scripted > weak,
    # and by symmetry the gaps are equal (a 75% score is 191 Elo points before the prior)
    games = [("strong", "scripted", 1.0)] * 3 + [("strong", "scripted", 0.0)]
    games += [("scripted", "weak", 1.0)] * 3 + [("scripted", "weak", 0.0)]
    r = elo_ratings(games)
    assert r["scripted"] == 1000.0
    assert r["strong"] > 1000.0 > r["weak"]
    assert r["strong"] - 1000.0 == pytest.approx(1000.0 - r["weak"], abs=1.0)
    assert elo_ratings(list(reversed(games))) == pytest.approx(r, abs=1.0)
