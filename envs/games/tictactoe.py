"""Tic-tac-toe for two agents (``x`` and ``o``): a zero-sum board game for self-play.

The board's cells are numbered 1-9 (rows top to bottom). A task is an opening: the moves already
played when the episode starts (none, one or two), so train and test openings differ; 20 of the
82 openings (seeded shuffle) form the ``test`` split. A move is a free cell's number (the
``move`` tool, or the last such number in the reply); an occupied or missing cell is an illegal
move, shown to the agent with the legal moves, and three in a row forfeit the game. A win scores
+1 for the winner and -1 for the loser, a draw 0 for both.

The scripted player wins when it can, else blocks, else takes the centre, a corner, a side
(ties broken by the env's seeded ``np_random``).
"""

from __future__ import annotations

import random
from typing import Any

from agentgym import Task, TaskSet
from agentgym.multiagent import IllegalAction

from .base import GameEnv
from .moves import read_move

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
TEST_OPENINGS = 20
INSTRUCTIONS = (
    "You play tic-tac-toe on a 3x3 board whose cells are numbered 1 to 9, left to right and top "
    "to bottom. Three of your marks in a row, column or diagonal win. On your turn reply with "
    "the number of one free cell, for example: 5"
)


def load_tasks() -> TaskSet:
    """Every opening of 0, 1 or 2 moves (82); 20 of them are the held-out ``test`` split."""
    openings: list[tuple[int, ...]] = [()]
    openings += [(a,) for a in range(1, 10)]
    openings += [(a, b) for a in range(1, 10) for b in range(1, 10) if a != b]
    held_out = set(random.Random(0).sample(openings, TEST_OPENINGS))
    return TaskSet(
        (Task(f"ttt-{''.join(map(str, o)) or 'empty'}", "test" if o in held_out else "train",
              "tic-tac-toe", {"opening": list(o)}) for o in openings),
        name="tictactoe",
    )  # fmt: skip


def winner(board: list[str]) -> str | None:
    """``"x"`` or ``"o"`` when one has three in a row, else None."""
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


class TicTacToeEnv(GameEnv):
    """Two agents, ``x`` (moves first) and ``o``, on a 3x3 board."""

    instructions = INSTRUCTIONS
    move_description = "Mark a free cell: its number, 1 to 9."
    possible_agents = ["x", "o"]  # noqa: RUF012

    def __init__(self, split: str = "train") -> None:
        super().__init__(load_tasks(), split)
        self.board = ["."] * 9

    def _reset(self, options: dict[str, Any]) -> dict[str, Any]:
        info = self.select_task(options)
        assert self.task is not None  # set by select_task
        self.board = ["."] * 9
        for i, cell in enumerate(self.task.data["opening"]):
            self.board[cell - 1] = "xo"[i % 2]
        self.agent_selection = "xo"[len(self.task.data["opening"]) % 2]
        return info

    def legal_actions(self, agent: str) -> list[str]:
        """The free cells' numbers."""
        return [str(i + 1) for i, c in enumerate(self.board) if c == "."]

    def _observe(self, agent: str) -> str:
        rows = [" ".join(c if c != "." else str(3 * r + i + 1)
                         for i, c in enumerate(self.board[3 * r:3 * r + 3])) for r in range(3)]
        head = f"You are {agent.upper()}. The board (numbers are free cells):\n" + "\n".join(rows)
        if self.done:
            return head + "\nThe game is over."
        turn = "your turn" if self.agent_selection == agent else "not your turn"
        return head + f"\nFree cells: {', '.join(self.legal_actions(agent))}. It is {turn}."

    def _act(self, agent: str, action: Any) -> None:
        cell = int(read_move(action, self.legal_actions(agent))) - 1
        if self.board[cell] != ".":  # unreachable: read_move only returns free cells
            raise IllegalAction(f"cell {cell + 1} is taken")
        self.board[cell] = agent
        other = "o" if agent == "x" else "x"
        if winner(self.board) == agent:
            self.end({agent: 1.0, other: -1.0}, f"{agent.upper()} won")
        elif "." not in self.board:
            self.end({}, "draw: the board is full")
        else:
            self.agent_selection = other

    def scripted_action(self, agent: str) -> str:
        """Win, else block, else centre, a corner, a side."""
        other = "o" if agent == "x" else "x"
        free = [i for i, c in enumerate(self.board) if c == "."]
        for mark in (agent, other):
            for i in free:
                trial = list(self.board)
                trial[i] = mark
                if winner(trial) == mark:
                    return str(i + 1)
        for group in ([4], [0, 2, 6, 8], [1, 3, 5, 7]):
            options = [i for i in group if i in free]
            if options:
                return str(options[int(self.np_random.integers(len(options)))] + 1)
        raise IllegalAction("no free cell")  # unreachable: the game ends on a full board


__all__ = ["TicTacToeEnv", "load_tasks", "winner"]
