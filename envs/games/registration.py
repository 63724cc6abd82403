"""The games family's env ids: each game as a multi-agent env and as one seat against a player.

``games/<game>-v0`` is the :class:`~agentgym.MultiAgentEnv` (PettingZoo AEC); ``games/<game>-vs-
scripted-v0`` is a :class:`~agentgym.SeatEnv` (the seat drawn per episode from the seed) against
the scripted player, which the rollout engine, ``agentgym eval`` and the trainers run like any
single-agent env. Pass ``opponent="random"``, a :class:`~agentgym.opponents.Opponent` or an
:class:`~agentgym.opponents.OpponentPool` to ``make`` for another opponent, ``seat=...`` to fix
the seat.
"""

from __future__ import annotations

from typing import Any


def tictactoe_seat(split: str = "train", seat: str | None = None,
                   opponent: Any = "scripted") -> Any:
    """One seat of tic-tac-toe against ``opponent`` (a name, an Opponent or an OpponentPool)."""
    from agentgym.seat import SeatEnv

    from .tictactoe import TicTacToeEnv

    return SeatEnv(TicTacToeEnv(split), seat=seat, opponent=opponent)


def kuhn_seat(split: str = "train", seat: str | None = None, hands: int = 3,
              opponent: Any = "scripted") -> Any:
    """One seat of Kuhn poker against ``opponent`` (a name, an Opponent or an OpponentPool)."""
    from agentgym.seat import SeatEnv

    from .kuhn import KuhnPokerEnv

    return SeatEnv(KuhnPokerEnv(split, hands), seat=seat, opponent=opponent)


def register_games(register: Any) -> None:
    """Register tic-tac-toe and Kuhn poker, multi-agent and seat views."""
    register("games/tictactoe-v0", "agentgym.envs.games.tictactoe:TicTacToeEnv", family="game",
             aliases=("tictactoe",), tasks="agentgym.envs.games.tictactoe:load_tasks",
             description="Tic-tac-toe for two agents (PettingZoo AEC); openings as tasks.")
    register("games/tictactoe-vs-scripted-v0",
             "agentgym.envs.games.registration:tictactoe_seat", family="game", max_turns=9,
             tasks="agentgym.envs.games.tictactoe:load_tasks",
             description="One seat of tic-tac-toe against a win/block/centre scripted player.")
    register("games/kuhn-poker-v0", "agentgym.envs.games.kuhn:KuhnPokerEnv", family="game",
             aliases=("kuhn-poker",), tasks="agentgym.envs.games.kuhn:load_tasks",
             description="Kuhn poker for two agents (PettingZoo AEC); 3-hand matches as tasks.")
    register("games/kuhn-poker-vs-scripted-v0", "agentgym.envs.games.registration:kuhn_seat",
             family="game", max_turns=12, tasks="agentgym.envs.games.kuhn:load_tasks",
             description="One seat of Kuhn poker against a near-equilibrium scripted player.")
