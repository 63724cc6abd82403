"""Win rates and Elo ratings from game outcomes, for self-play evaluation reports.

An outcome is ``(player, opponent, score)`` with ``score`` 1 (player won), 0.5 (draw) or 0 (lost).
:func:`win_rates` counts per opponent; :func:`elo_ratings` fits Elo ratings to all outcomes by
maximum likelihood on Elo's logistic 400-point scale, with one player pinned as the anchor (the
scripted opponent at 1000 by default), so ratings of checkpoints evaluated in different runs
against the same anchor are comparable.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Outcome = tuple[str, str, float]
"""``(player, opponent, score)``: score 1 win, 0.5 draw, 0 loss (from ``player``'s side)."""


@dataclass(frozen=True)
class WinRate:
    """Results of one player against one opponent."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses

    @property
    def rate(self) -> float:
        """Win rate, a draw counting half (0 when no game was played)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def outcome_score(outcome: str) -> float:
    """``win`` -> 1, ``draw`` -> 0.5, anything else (``loss``, ``forfeit``) -> 0."""
    return {"win": 1.0, "draw": 0.5}.get(outcome, 0.0)


def win_rates(outcomes: Iterable[Outcome], player: str) -> dict[str, WinRate]:
    """``player``'s results against each opponent."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for a, b, score in outcomes:
        if a == player:
            opp, s = b, score
        elif b == player:
            opp, s = a, 1.0 - score
        else:
            continue
        counts[opp][0 if s > 0.5 else 1 if s == 0.5 else 2] += 1
    return {opp: WinRate(*c) for opp, c in counts.items()}


def elo_ratings(outcomes: Sequence[Outcome], anchor: str = "scripted",
                anchor_rating: float = 1000.0, prior_games: float = 1.0,
                iterations: int = 2000) -> dict[str, float]:
    """Elo ratings that best explain ``outcomes`` (the Bradley-Terry maximum-likelihood fit on
    Elo's 400-point logistic scale, so it does not depend on the games' order), each player
    given ``prior_games`` virtual draws against an average player so that an unbeaten record
    stays finite; shifted so that ``anchor`` (when it played) sits at ``anchor_rating``."""
    names = sorted({n for a, b, _ in outcomes for n in (a, b)})
    r = dict.fromkeys(names, 0.0)
    scale = math.log(10) / 400.0
    for _ in range(iterations):
        grad = {n: -prior_games * 0.5 * math.tanh(scale * r[n] / 2) for n in names}  # the prior
        for a, b, score in outcomes:
            expected = 1.0 / (1.0 + 10 ** ((r[b] - r[a]) / 400.0))
            grad[a] += score - expected
            grad[b] -= score - expected
        for n in names:
            r[n] += 40.0 * grad[n] / (1.0 + len(outcomes) / max(1, len(names)))
    shift = anchor_rating - r[anchor] if anchor in r else anchor_rating
    return {n: round(v + shift, 1) for n, v in r.items()}


__all__ = ["Outcome", "WinRate", "elo_ratings", "outcome_score", "win_rates"]
