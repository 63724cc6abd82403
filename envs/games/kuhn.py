"""Kuhn poker for two agents: a zero-sum card game with hidden information, for self-play.

Three cards (J < Q < K); each hand both players ante 1 chip and get one card, the other card is
unseen. The first player checks or bets 1; after a check the second player checks (showdown for
the pot of 2) or bets; facing a bet a player folds (the bettor takes the pot) or calls (showdown
for the pot of 4). A match is ``hands`` hands (default 3), the first player alternating; a task
is a match's deals, drawn from the task's seed. 30 of the 120 matches are the held-out ``test``
split. A hand's result is paid when it ends (+chips to the winner, the same minus to the loser);
the episode's score is the match total.

A move is ``check``, ``bet``, ``call`` or ``fold`` (the ``move`` tool, or the last such word in
the reply); a move that is not legal now is shown with the legal ones, three in a row forfeit.
The scripted player plays a fixed strategy close to the game's equilibrium (bets the king,
bluffs the jack a third of the time, calls with the queen a third of the time).
"""

from __future__ import annotations

import random
from typing import Any

from agentgym import Task, TaskSet

from .base import GameEnv
from .moves import read_move

CARDS = "JQK"
MATCHES, TEST_MATCHES = 120, 30
INSTRUCTIONS = (
    "You play Kuhn poker. The deck has three cards: J < Q < K. Each hand both players put 1 chip "
    "in the pot and get one card; the higher card wins at showdown. First to act: check or bet "
    "(1 chip). After a check: check (showdown) or bet. Facing a bet: fold (lose the pot) or call "
    "(showdown). On your turn reply with one word: check, bet, call or fold."
)


def load_tasks(hands: int = 3) -> TaskSet:
    """120 matches of ``hands`` hands each, with seeded deals; 30 are the ``test`` split."""
    held_out = set(random.Random(0).sample(range(MATCHES), TEST_MATCHES))
    tasks = []
    for m in range(MATCHES):
        rng = random.Random(f"kuhn-{m}")
        deals = ["".join(rng.sample(CARDS, 2)) for _ in range(hands)]
        tasks.append(Task(f"kuhn-{m:03d}", "test" if m in held_out else "train", "kuhn poker",
                          {"deals": deals}))
    return TaskSet(tasks, name="kuhn")


class KuhnPokerEnv(GameEnv):
    """Two agents, ``player_0`` and ``player_1``, play a match of Kuhn poker hands."""

    instructions = INSTRUCTIONS
    move_description = "Your poker move: check, bet, call or fold."
    possible_agents = ["player_0", "player_1"]  # noqa: RUF012
    reward_probe_exemptions = {  # noqa: RUF012
        "echo": "the observation ends with the legal moves ('check or bet') and a reply plays "
                "the last legal move it names, so echoing it plays a legal move: playing, not a "
                "hack; doing nothing forfeits (-1), and any move can win chips back",
        "always_equal": "a program names a legal move ('call' in 'def __call__') and plays it: "
                        "a legal move is playing, not a hack, and it beats a forfeit by the "
                        "rules of the game",
        "tool_return": "the move tool's answer is the next observation, which ends with the "
                       "legal moves, so sending it back plays a legal move (as echo does)",
    }
    """Reward probe classes this game opts out of (``check_rewards``), with the reasons; every
    other class runs. The seat view (:class:`~agentgym.SeatEnv`) reports the game's."""

    def __init__(self, split: str = "train", hands: int = 3) -> None:
        super().__init__(load_tasks(hands), split)
        self.hand = 0
        self.cards: dict[str, str] = {}
        self.history: list[str] = []
        self.log: list[str] = []

    def _reset(self, options: dict[str, Any]) -> dict[str, Any]:
        info = self.select_task(options)
        self.hand, self.log = 0, []
        self._deal()
        return info

    @property
    def first(self) -> str:
        """Who acts first in the current hand (alternates)."""
        return self.possible_agents[self.hand % 2]

    def _deal(self) -> None:
        assert self.task is not None
        deal = self.task.data["deals"][self.hand]
        first, second = self.first, self.possible_agents[(self.hand + 1) % 2]
        self.cards = {first: deal[0], second: deal[1]}
        self.history = []
        self.agent_selection = first

    def legal_actions(self, agent: str) -> list[str]:
        """``check``/``bet`` unless facing a bet, then ``fold``/``call``."""
        return ["fold", "call"] if self.history and self.history[-1] == "bet" else ["check", "bet"]

    def _observe(self, agent: str) -> str:
        assert self.task is not None
        hands = len(self.task.data["deals"])
        score = self.scores.get(agent, 0.0)
        lines = [f"You are {agent}. Match score: {score:+g} chips.", *self.log]
        if not self.done:
            moves = ", ".join(f"{'you' if who == agent else 'opponent'} {m}"
                              for who, m in self._actors()) or "none yet"
            lines += [f"Hand {self.hand + 1} of {hands}. Your card: {self.cards[agent]}. "
                      f"Moves so far: {moves}."]
            if self.agent_selection == agent:
                lines.append(f"Your move ({' or '.join(self.legal_actions(agent))}):")
        return "\n".join(lines)

    def _actors(self) -> list[tuple[str, str]]:
        order = [self.first, self.possible_agents[(self.hand + 1) % 2]]
        return [(order[i % 2], m) for i, m in enumerate(self.history)]

    def _act(self, agent: str, action: Any) -> None:
        move = read_move(action, self.legal_actions(agent))
        self.history.append(move)
        other = next(a for a in self.possible_agents if a != agent)
        h = self.history
        if move == "fold":
            bettor = other
            self._pay(bettor, 1, f"{agent} folded")
        elif h == ["check", "check"] or move == "call":
            self._showdown(2 if move == "call" else 1)
        else:
            self.agent_selection = other

    def _showdown(self, chips: int) -> None:
        a, b = self.possible_agents
        win = a if CARDS.index(self.cards[a]) > CARDS.index(self.cards[b]) else b
        self._pay(win, chips, f"showdown {a} {self.cards[a]} vs {b} {self.cards[b]}")

    def _pay(self, winner: str, chips: int, how: str) -> None:
        assert self.task is not None
        loser = next(a for a in self.possible_agents if a != winner)
        self.rewards[winner], self.rewards[loser] = float(chips), -float(chips)
        self.log.append(f"Hand {self.hand + 1}: {how}; {winner} won {chips} chip(s).")
        self.hand += 1
        if self.hand >= len(self.task.data["deals"]):
            self.end(dict(self.rewards), "the match is over")
        else:
            self._deal()

    def scripted_action(self, agent: str) -> str:
        """A fixed near-equilibrium strategy."""
        card, h = self.cards[agent], self.history
        bluff = float(self.np_random.random()) < 1 / 3
        if not h or h == ["check"]:  # first to act, or after a check
            return "bet" if card == "K" or (card == "J" and bluff) else "check"
        return "call" if card == "K" or (card == "Q" and bluff) else "fold"  # facing a bet


__all__ = ["KuhnPokerEnv", "load_tasks"]
