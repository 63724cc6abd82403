"""Guess-the-number and wordle, written on :class:`agentgym.TaskToolEnv`."""

from __future__ import annotations

import json
import random

from agentgym import Task, TaskSet, TaskToolEnv, ToolArgumentError

WORDS = (
    "apple brave crane drive eagle flame grape house input joker knife lemon mango noble ocean "
    "piano queen river stone tiger ultra vivid whale xenon yacht zebra amber blaze cider dwarf "
    "ember frost glove haste ivory jelly karma lunar maple nerve orbit pearl quilt raven solar "
    "tulip unity vapor wheat youth zesty"
).split()


def _shuffled(items: list, name: str) -> list:
    """``items`` in a fixed order that depends only on ``name``: task ids say nothing of answers."""
    order = list(items)
    random.Random(f"agentgym-textgames-{name}").shuffle(order)
    return order


def guess_number_tasks() -> TaskSet:
    """Targets 1..100 behind opaque ids ``guess-001``..``guess-100``; every fifth id is test."""
    targets = _shuffled(list(range(1, 101)), "guess-number")
    return TaskSet(
        (
            Task(f"guess-{i:03d}", "test" if i % 5 == 0 else "train",
                 "Find the hidden number between 1 and 100.", {"target": target})
            for i, target in enumerate(targets, start=1)
        ),
        name="guess-number",
    )


def wordle_tasks() -> TaskSet:
    """One task per word behind opaque ids ``wordle-00``...; every fourth id is held out."""
    return TaskSet(
        (
            Task(f"wordle-{i:02d}", "test" if i % 4 == 0 else "train",
                 "Guess the hidden five-letter word.", {"answer": w})
            for i, w in enumerate(_shuffled(list(WORDS), "wordle"))
        ),
        name="wordle",
    )


def task_for_answer(tasks: TaskSet, key: str, value: object) -> Task:
    """The task whose hidden ``key`` is ``value`` (for tests and docs, never shown to players)."""
    return next(t for t in tasks if t.data[key] == value)


def fewer_guesses_reward(guesses: int, max_guesses: int) -> float:
    """1.0 for a first-try win, falling linearly to 0.1 for a win on the last allowed guess."""
    if guesses < 1 or guesses > max_guesses:
        return 0.0
    return 1.0 - 0.9 * (guesses - 1) / max(1, max_guesses - 1)


class GuessNumberEnv(TaskToolEnv):
    """Find a hidden number with the ``guess`` tool; reward 1 for finding it.

    One guess per turn and at most :attr:`max_guesses` (7, the worst case of binary search over
    1..100): enumerating numbers wins at most 7% of games, a binary search every game.
    """

    instructions = (
        "You play guess-the-number. Call the tool `guess` with an integer from 1 to 100; it "
        'answers "higher", "lower" or "correct". One guess per turn, seven guesses in all. '
        'Call it as <tool_call>{"name": "guess", "arguments": {"number": 50}}</tool_call>.'
    )
    max_guesses = 7
    """Binary search over 1..100 needs at most 7 guesses."""
    reward_probe_exemptions = {  # noqa: RUF012
        "numbers": "guessing numbers is the game: one guess per turn and 7 guesses bound "
                   "enumeration to 7% of games (tests/security/test_rewards_textgames.py)",
        "candidates": "the candidates are the targets, i.e. numbers: bounded as above",
    }

    def __init__(self, split: str = "train") -> None:
        super().__init__(guess_number_tasks(), split)
        self.guesses = 0
        self.guessed_on_turn = 0

    def make_tools(self) -> list:
        """The single ``guess`` tool."""
        return [self.guess]

    def start(self, task: Task) -> str:
        """Reset the guess counter and show the task."""
        self.guesses = 0
        self.guessed_on_turn = 0
        return task.prompt

    def guess(self, number: int) -> str:
        """Guess the hidden number.

        Args:
            number: Your guess, an integer from 1 to 100.
        """
        if not 1 <= number <= 100:
            raise ToolArgumentError(f"number must be between 1 and 100, got {number}")
        if self.guessed_on_turn == self.turn:
            raise ToolArgumentError("one guess per turn: this guess was not counted")
        self.guessed_on_turn = self.turn
        self.guesses += 1
        target = self.task.data["target"]  # type: ignore[union-attr]
        if number == target:
            self.finish(1.0, success=True, guesses=self.guesses)
            return f"correct: {number} after {self.guesses} guesses"
        if self.guesses >= self.max_guesses:
            self.finish(0.0, success=False, guesses=self.guesses)
            return f"wrong; out of guesses, the number was {target}"
        return "higher" if target > number else "lower"

    def expert_actions(self, task: Task) -> list[str]:
        """Binary search, as tool-call text."""
        lo, hi, out = 1, 100, []
        while True:
            mid = (lo + hi) // 2
            call = {"name": "guess", "arguments": {"number": mid}}
            out.append(f"<tool_call>{json.dumps(call)}</tool_call>")
            if mid == task.data["target"]:
                return out
            lo, hi = (mid + 1, hi) if task.data["target"] > mid else (lo, mid - 1)


class WordleEnv(TaskToolEnv):
    """Wordle with a ``guess`` tool: G = right place, Y = elsewhere in the word, . = absent."""

    instructions = (
        "You play wordle. Call `guess` with a five-letter lowercase word; the feedback marks each "
        "letter G (right place), Y (in the word, elsewhere) or . (absent). Six guesses. Example: "
        '<tool_call>{"name": "guess", "arguments": {"word": "crane"}}</tool_call>.'
    )
    max_guesses = 6
    reward_probe_exemptions = {  # noqa: RUF012
        "candidates": "guessing words is the game: six guesses and a reward that falls with "
                      "every guess bound what guessing from a word list earns",
    }

    def __init__(self, split: str = "train") -> None:
        super().__init__(wordle_tasks(), split)
        self.guesses = 0

    def make_tools(self) -> list:
        """The single ``guess`` tool."""
        return [self.guess]

    def start(self, task: Task) -> str:
        """Reset the guess counter and show the task."""
        self.guesses = 0
        return task.prompt

    def guess(self, word: str) -> str:
        """Guess the hidden word.

        Args:
            word: A five-letter lowercase word.
        """
        word = word.strip().lower()
        if len(word) != 5 or not word.isalpha():
            raise ToolArgumentError(f"word must be five letters, got {word!r}")
        self.guesses += 1
        answer = self.task.data["answer"]  # type: ignore[union-attr]
        pairs = zip(word, answer, strict=True)
        marks = "".join("G" if c == a else ("Y" if c in answer else ".") for c, a in pairs)
        if word == answer:
            reward = fewer_guesses_reward(self.guesses, self.max_guesses)
            self.finish(reward, success=True, guesses=self.guesses)
            return f"{marks}  correct after {self.guesses} guesses"
        if self.guesses >= self.max_guesses:
            self.finish(0.0, success=False, guesses=self.guesses)
            return f"{marks}  out of guesses; the word was {answer}"
        return f"{marks}  ({self.max_guesses - self.guesses} guesses left)"

    def expert_actions(self, task: Task) -> list[str]:
        """Guess the answer directly."""
        word = task.data["answer"]
        return [f'<tool_call>{{"name": "guess", "arguments": {{"word": "{word}"}}}}</tool_call>']
