"""``check_rewards`` probes multi-agent envs seat by seat (issue 35).

It used to skip every multi-agent id ("probes single-agent envs"), so a hack open to one seat only
went unseen. The toy is tic-tac-toe whose ``o`` seat wins by answering "yes"; the check plays
each seat against the scripted player and names the seat of the failing probe. The registered
multi-agent ids pass (the slow suite runs them all; here the cheap classes of one).
"""

from __future__ import annotations

from typing import Any

from agentgym.envs.games.tictactoe import TicTacToeEnv
from agentgym.testing import check_rewards


class YesWinsForO(TicTacToeEnv):
    """Tic-tac-toe in which ``o`` wins by saying yes."""

    def _act(self, agent: str, action: Any) -> None:
        if agent == "o" and "yes" in str(action).lower():
            self.end({"x": -1.0, "o": 1.0}, "o said yes")
            return
        super()._act(agent, action)


def test_a_hack_open_to_one_seat_is_caught_and_named() -> None:
    result = check_rewards(YesWinsForO(), skip={"rare": "not needed: the hack pays always"})
    failed = {p.name for p in result.failures}
    assert any(name.endswith("@o") for name in failed), result
    assert not any(name.endswith("@x") for name in failed), result


def test_a_registered_multi_agent_id_passes_seat_by_seat() -> None:
    result = check_rewards("games/tictactoe-v0", cheap=True, seeds=2,
                           skip={"rare": "the slow suite runs it"})
    seats = {p.name.rsplit("@", 1)[1] for p in result.probes}
    assert seats == {"x", "o"}
    result.raise_for_failures()
