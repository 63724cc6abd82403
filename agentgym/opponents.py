"""Who plays the other seats of a multi-agent env: scripted, random, a policy, or a pool of them.

An :class:`Opponent` chooses an action for one agent of a :class:`~agentgym.MultiAgentEnv`. It
is stateless: the conversation an LLM opponent needs (its instructions, what it saw, what it
said) is kept by the caller (:class:`agentgym.SeatEnv`) and passed in, so one opponent object
serves any number of concurrent episodes.

- :class:`ScriptedOpponent`: the env's :meth:`~agentgym.MultiAgentEnv.scripted_action`;
- :class:`RandomOpponent`: a uniformly random legal action;
- :class:`PolicyOpponent`: any agentgym policy (the current policy for self-play, a frozen
  checkpoint, a served model), sampling one turn from the agent's own conversation;
- :class:`OpponentPool`: draws one of several opponents per episode with given weights (a pool of
  past checkpoints beside the scripted player).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .multiagent import MultiAgentEnv
from .policies.base import EpisodeContext, Policy, SamplingParams


class Opponent(ABC):
    """Chooses the action of one agent of a multi-agent env."""

    name: str = "opponent"

    @abstractmethod
    async def act(self, env: MultiAgentEnv, agent: str, messages: list[dict[str, Any]]) -> Any:
        """The action of ``agent`` now; ``messages`` is its conversation so far (the caller
        appends the latest observation before and the action's text after)."""


class ScriptedOpponent(Opponent):
    """Plays the env's scripted strategy."""

    name = "scripted"

    async def act(self, env: MultiAgentEnv, agent: str, messages: list[dict[str, Any]]) -> Any:
        """The env's scripted action for ``agent``."""
        return env.scripted_action(agent)


class RandomOpponent(Opponent):
    """Plays a uniformly random legal action (seeded by the env's ``np_random``)."""

    name = "random"

    async def act(self, env: MultiAgentEnv, agent: str, messages: list[dict[str, Any]]) -> Any:
        """A random legal action for ``agent``."""
        return env.random_action(agent)


class PolicyOpponent(Opponent):
    """Plays with an agentgym policy: one sampled turn from the agent's own conversation."""

    def __init__(self, policy: Policy, sampling: SamplingParams | None = None,
                 name: str = "policy") -> None:
        self.policy = policy
        self.sampling = sampling or SamplingParams(max_tokens=64, temperature=1.0)
        self.name = name

    async def act(self, env: MultiAgentEnv, agent: str, messages: list[dict[str, Any]]) -> Any:
        """The policy's next turn for ``agent`` (its text is the action)."""
        tools = env.tools_for(agent)
        seed = int(env.np_random.integers(2**31))
        gen = await self.policy.agenerate(
            messages, tools=tools.to_openai() if len(tools) else None,
            sampling=self.sampling.with_(seed=seed),
            episode=EpisodeContext(episode_id=f"opponent-{agent}", seed=seed),
        )  # fmt: skip
        if gen.tool_calls:
            return {"role": "assistant", "content": gen.text, "tool_calls": gen.tool_calls}
        return gen.text


@dataclass(frozen=True)
class PoolEntry:
    """One opponent of a pool and how often it is drawn."""

    opponent: Opponent
    weight: float = 1.0


class OpponentPool:
    """Draws an opponent per episode, with weights (seeded by the env's ``np_random``)."""

    def __init__(self, entries: Sequence[Opponent | PoolEntry]) -> None:
        self.entries = [e if isinstance(e, PoolEntry) else PoolEntry(e) for e in entries]
        if not self.entries:
            raise ValueError("an opponent pool needs at least one opponent")

    def add(self, opponent: Opponent, weight: float = 1.0) -> None:
        """Add an opponent (a new checkpoint, for example)."""
        self.entries.append(PoolEntry(opponent, weight))

    def draw(self, rng: Any) -> Opponent:
        """One opponent, drawn with the entries' weights."""
        total = sum(e.weight for e in self.entries)
        x = float(rng.random()) * total
        for e in self.entries:
            x -= e.weight
            if x < 0:
                return e.opponent
        return self.entries[-1].opponent

    @property
    def names(self) -> list[str]:
        """The opponents' names, in order."""
        return [e.opponent.name for e in self.entries]


def opponent_from_name(name: str) -> Opponent:
    """``scripted`` or ``random`` (policy opponents are built with a policy object)."""
    if name == "scripted":
        return ScriptedOpponent()
    if name == "random":
        return RandomOpponent()
    raise ValueError(f"unknown opponent {name!r}: use 'scripted', 'random' or a PolicyOpponent")


__all__ = ["Opponent", "OpponentPool", "PolicyOpponent", "PoolEntry", "RandomOpponent",
           "ScriptedOpponent", "opponent_from_name"]
