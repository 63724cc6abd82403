"""The games' reward probe opt-outs live in the games, with their reasons (issue 24, follow-up).

Against the scripted player, doing nothing forfeits (-1), and a game reads a move from the last
word of a reply that names a legal one. Kuhn poker's observation lists the legal moves and a
program says ``call`` (``def __call__``), so the echo and always-equal probes play a move, which
beats a forfeit by the rules of the game: that is playing, not a hack. The suite used to skip
those probes for the whole ``games`` namespace by name; now the game says so itself, the probe
report shows why, every other probe class still runs, and tic-tac-toe (whose echo and programs
do not beat a forfeit) opts out of nothing. The proof is ``check_rewards`` passing with no skip
given by the caller, and failing when the game's opt-outs are taken away.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import agentgym
from agentgym.envs.games.kuhn import KuhnPokerEnv
from agentgym.envs.games.moves import read_move
from agentgym.testing import PROBE_KINDS, check_rewards
from agentgym.testing.probe_payloads import always_equal_codes

KUHN = "games/kuhn-poker-vs-scripted-v0"
TICTACTOE = "games/tictactoe-vs-scripted-v0"


def test_kuhn_poker_opts_out_of_move_naming_probes_itself() -> None:
    result = check_rewards(KUHN)
    assert set(result.skipped) == {"echo", "always_equal", "tool_return"}
    assert all("legal move" in reason for reason in result.skipped.values())
    assert {p.kind for p in result.probes} == set(PROBE_KINDS) - set(result.skipped)
    result.raise_for_failures()


def test_the_opt_outs_are_what_make_kuhn_poker_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without them the two probes win chips over a forfeit: the reason is needed, not a
    blanket skip."""
    monkeypatch.setattr(KuhnPokerEnv, "reward_probe_exemptions", {}, raising=False)
    failed = {p.kind for p in check_rewards(KUHN).failures}
    assert failed == {"echo", "always_equal", "tool_return"}


def test_the_exempted_probes_play_a_legal_move_in_kuhn_poker() -> None:
    """What the reason says: the probe's text names a legal move."""
    env = agentgym.make(KUHN)
    try:
        obs, _ = env.reset(seed=0)
        base = env.unwrapped
        legal = base.env.legal_actions(base.player)
        assert read_move(obs["text"], legal) in legal
        assert read_move(always_equal_codes(["solution"])[0], ["fold", "call"]) == "call"
    finally:
        env.close()


def test_tictactoe_runs_every_probe() -> None:
    result = check_rewards(TICTACTOE)
    assert result.skipped == {}
    result.raise_for_failures()


def test_the_suite_has_no_namespace_exemptions() -> None:
    """tests/test_all_envs.py skips no probe class by env name any more."""
    suite = (Path(__file__).parents[1] / "test_all_envs.py").read_text()
    assert "PROBE_EXEMPTIONS" not in suite and '"games"' not in suite
