"""What the running episodes of an evaluation are doing, for a progress display.

A bar of finished episodes says nothing for minutes when each episode is a long multi-turn
conversation with a slow model (a CPU model at ``0/2`` for 5 minutes). :class:`LiveEpisodes`
follows every running episode turn by turn: turns done, tokens generated, tokens per second,
and an upper estimate of the time it has left (turns left times the mean turn time so far);
:meth:`LiveEpisodes.run_estimate_s` estimates the whole run. :class:`WatchedPolicy` wraps the
evaluated policy to feed it: it sees every turn start and end (the engine already tells each
policy call its episode), so neither the engine nor the policy backends know about it.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..policies.base import EpisodeContext, Generation, Policy, SamplingParams

Key = tuple[str | None, int]
"""An episode's ``(task_id, sample_idx)``, as its trajectory names it."""


@dataclass
class RunningEpisode:
    """One episode in flight."""

    task_id: str | None
    sample_idx: int
    started: float
    turns: int = 0
    """Model turns finished."""
    tokens: int = 0
    """Tokens generated so far."""
    generating_s: float = 0.0
    """Seconds spent in the policy's finished turns."""
    turn_started: float | None = None
    """When the turn in progress began (None between turns: the env is stepping)."""


class LiveEpisodes:
    """Turn-level state of the running episodes (thread-safe; the display reads it)."""

    def __init__(self, max_turns: int, concurrency: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_turns = max_turns
        self.concurrency = max(1, concurrency)
        self.clock = clock
        self.running: dict[Key, RunningEpisode] = {}
        self.turns_done = 0
        self.turn_seconds = 0.0
        self.tokens = 0
        self.finished = 0
        self.finished_seconds = 0.0
        self._lock = threading.Lock()

    def turn_started(self, key: Key) -> None:
        """The policy was asked for the next turn of ``key``."""
        now = self.clock()
        with self._lock:
            ep = self.running.get(key)
            if ep is None:
                ep = self.running[key] = RunningEpisode(key[0], key[1], now)
            ep.turn_started = now

    def turn_done(self, key: Key, tokens: int) -> None:
        """The policy answered ``key``'s turn with ``tokens`` new tokens."""
        now = self.clock()
        with self._lock:
            ep = self.running.get(key)
            if ep is None or ep.turn_started is None:
                return
            took = now - ep.turn_started
            ep.turns += 1
            ep.tokens += tokens
            ep.generating_s += took
            ep.turn_started = None
            self.turns_done += 1
            self.turn_seconds += took
            self.tokens += tokens

    def episode_done(self, key: Key) -> None:
        """``key`` ended (its trajectory came back)."""
        now = self.clock()
        with self._lock:
            ep = self.running.pop(key, None)
            self.finished += 1
            if ep is not None:
                self.finished_seconds += now - ep.started

    @property
    def mean_turn_s(self) -> float | None:
        """Mean seconds of one policy turn so far (None before the first)."""
        return self.turn_seconds / self.turns_done if self.turns_done else None

    def rows(self) -> list[dict[str, Any]]:
        """One dict per running episode: task, sample, turn (1-based, in progress or next),
        tokens, tokens/s and ``left_s``, an upper estimate of its remaining seconds."""
        now, mean = self.clock(), self.mean_turn_s
        with self._lock:
            eps = sorted(self.running.values(), key=lambda e: e.started)
            out = []
            for ep in eps:
                busy = ep.generating_s + (now - ep.turn_started if ep.turn_started else 0.0)
                left = None if mean is None else max(0, self.max_turns - ep.turns) * mean
                if left is not None and ep.turn_started is not None:
                    left = max(0.0, left - (now - ep.turn_started))
                out.append({"task_id": ep.task_id, "sample_idx": ep.sample_idx,
                            "turn": min(ep.turns + 1, self.max_turns), "turns": ep.turns,
                            "tokens": ep.tokens,
                            "tokens_per_s": ep.tokens / busy if busy > 0 else 0.0,
                            "left_s": left})
            return out

    def run_estimate_s(self, remaining: int) -> float | None:
        """Seconds the ``remaining`` unfinished episodes may still take, ``concurrency`` at a
        time: from the finished episodes' mean length once there are some, else an upper
        bound from the mean turn time (every episode using every turn). None before any turn.
        """
        with self._lock:
            if self.finished and self.finished_seconds > 0:
                per_episode = self.finished_seconds / self.finished
            elif self.turns_done:
                per_episode = self.max_turns * self.turn_seconds / self.turns_done
            else:
                return None
        return math.ceil(max(0, remaining) / self.concurrency) * per_episode


class WatchedPolicy(Policy):
    """``inner`` with every turn's start and end reported to a :class:`LiveEpisodes`.

    Everything else (tokenizer, chat format, version, checks, closing) is the inner policy's.
    """

    def __init__(self, inner: Policy, live: LiveEpisodes,
                 on_turn: Callable[[], None] | None = None) -> None:
        self.inner, self.live, self.on_turn = inner, live, on_turn
        self.name = inner.name

    @property
    def tokenizer(self) -> Any:  # type: ignore[override]
        """The inner policy's tokenizer."""
        return self.inner.tokenizer

    @property
    def version(self) -> int:  # type: ignore[override]
        """The inner policy's weights version."""
        return self.inner.version

    def chat_format(self) -> Any:
        """The inner policy's chat format."""
        return self.inner.chat_format()

    async def agenerate(
        self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams, prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """The inner policy's turn, timed for the episode it belongs to."""
        key = (episode.task_id, episode.sample_idx) if episode is not None else None
        if key is not None:
            self.live.turn_started(key)
        gen = await self.inner.agenerate(messages, tools=tools, sampling=sampling,
                                         prompt_token_ids=prompt_token_ids, episode=episode)
        if key is not None:
            self.live.turn_done(key, len(gen.token_ids) or len(gen.text.split()))
            if self.on_turn is not None:
                self.on_turn()
        return gen

    async def acheck(self) -> None:
        """The inner policy's check."""
        await self.inner.acheck()

    async def aclose(self) -> None:
        """Close the inner policy's loop-bound resources."""
        await self.inner.aclose()

    def close(self) -> None:
        """Close the inner policy."""
        self.inner.close()

    def describe(self) -> dict[str, Any]:
        """The inner policy's description."""
        return self.inner.describe()

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet: no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)


__all__ = ["LiveEpisodes", "RunningEpisode", "WatchedPolicy"]
