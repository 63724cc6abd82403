"""Multi-agent envs: PettingZoo's AEC API with agentgym's observations, tools and async twins.

A :class:`MultiAgentEnv` is a :class:`pettingzoo.AECEnv`: agents act one at a time
(``agent_selection``), each sees its own observation (``observe(agent)``), and ``rewards``,
``terminations``, ``truncations`` and ``infos`` are dicts keyed by agent, so PettingZoo's own
``api_test`` and AEC tooling run on it unchanged. What agentgym adds:

- observations are the agentgym observation dict (``{"text", "images"}``) and actions are model
  text, a message dict or tool calls, as for single-agent envs; every agent has its own
  instructions (:meth:`MultiAgentEnv.instructions_for`) and tools (:meth:`tools_for`);
- bad input never raises: an action the env cannot parse or that breaks the rules raises
  :class:`IllegalAction` inside :meth:`MultiAgentEnv._act`; the agent sees the error at the top
  of its next observation and acts again, and after ``max_invalid`` invalid actions in a row it
  forfeits (the env's :meth:`MultiAgentEnv.forfeit` decides the rewards);
- ``areset``/``astep`` twins, and :meth:`scripted_action` / :meth:`random_action` for scripted
  opponents and baselines.

:class:`agentgym.SeatEnv` turns one seat of a multi-agent env into an ordinary single-agent env
whose other seats are played by opponents, so the rollout engine and every trainer work on it
unchanged (self-play, play against a scripted opponent or a pool of checkpoints).
"""

from __future__ import annotations

import asyncio
from typing import Any

from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .env import Observation, make_observation
from .errors import EnvError
from .spaces import AgentAction, observation_space
from .tools import ToolSet


class IllegalAction(EnvError):
    """An agent's action cannot be parsed or breaks the rules; the agent is asked again."""


class MultiAgentEnv(AECEnv):  # type: ignore[misc]
    """Base class of agentgym's multi-agent envs (PettingZoo AEC).

    Subclasses set :attr:`possible_agents` and implement :meth:`_reset`, :meth:`_observe` and
    :meth:`_act`; :meth:`_act` moves ``agent_selection`` on and calls :meth:`end` when the game
    is over.
    """

    metadata = {"render_modes": ["ansi"], "name": "agentgym_multiagent",  # noqa: RUF012
                "is_parallelizable": False}
    possible_agents: list[str] = []  # noqa: RUF012
    """Every agent that can take part, in seat order."""
    zero_sum: bool = True
    """Whether the agents compete (win/loss/draw outcomes) rather than share a reward."""
    max_invalid: int = 3
    """Invalid actions in a row after which an agent forfeits."""
    agentgym_spec: Any = None
    """The :class:`agentgym.EnvSpec` this env was made from (set by :func:`agentgym.make`)."""

    def __init__(self) -> None:
        super().__init__()
        self._obs_space = observation_space()
        self._act_space = AgentAction()
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = ""
        self.render_mode = "ansi"
        self.np_random, _ = seeding.np_random(None)
        self._errors: dict[str, str] = {}
        self._invalid: dict[str, int] = {}
        self.moves = 0
        """Valid actions played this episode."""
        self.scores: dict[str, float] = {}
        """Each agent's total reward this episode."""

    # -- for authors ---------------------------------------------------------------------------

    def instructions_for(self, agent: str) -> str:
        """System prompt of ``agent``: its role, the action format and its tools."""
        return ""

    def tools_for(self, agent: str) -> ToolSet:
        """Tools ``agent`` may call (empty for text-only roles)."""
        return ToolSet()

    def _reset(self, options: dict[str, Any]) -> dict[str, Any]:
        """Start a game (the task of ``options``, else one drawn with ``np_random``); return
        info shared by every agent. ``agent_selection`` defaults to the first agent."""
        raise NotImplementedError

    def _observe(self, agent: str) -> str:
        """What ``agent`` sees now."""
        raise NotImplementedError

    def _act(self, agent: str, action: Any) -> None:
        """Apply ``agent``'s action; raise :class:`IllegalAction` for an invalid one."""
        raise NotImplementedError

    def forfeit(self, agent: str, reason: str) -> None:
        """``agent`` gave up (too many invalid actions): by default it loses 1, the others
        share +1 (zero-sum); cooperative envs override this."""
        others = [a for a in self.agents if a != agent]
        rewards = {agent: -1.0, **{a: 1.0 / len(others) for a in others}} if others else {}
        self.end(rewards, f"{agent} forfeited: {reason}")

    def scripted_action(self, agent: str) -> Any:
        """A sensible action for ``agent`` now (the scripted opponent); optional."""
        raise NotImplementedError(f"{type(self).__name__} has no scripted player")

    def legal_actions(self, agent: str) -> list[str]:
        """The actions ``agent`` may play now, as text (for random players and error hints)."""
        raise NotImplementedError(f"{type(self).__name__} lists no legal actions")

    def random_action(self, agent: str) -> Any:
        """A uniformly random legal action (the random baseline)."""
        legal = self.legal_actions(agent)
        return legal[int(self.np_random.integers(len(legal)))]

    def end(self, rewards: dict[str, float], reason: str) -> None:
        """End the episode for every agent with these rewards; ``reason`` goes to each info."""
        for a in self.agents:
            self.rewards[a] = float(rewards.get(a, 0.0))
            self.terminations[a] = True
            self.infos[a]["end_reason"] = reason

    # -- PettingZoo API ------------------------------------------------------------------------

    def observation_space(self, agent: str) -> Any:
        """The agentgym observation space (text and images), the same for every agent."""
        return self._obs_space

    def action_space(self, agent: str) -> Any:
        """The agentgym action space (text, message dict or tool calls)."""
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode; ``seed`` or ``options={"task_id": ...}`` picks the game."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._errors, self._invalid, self.moves = {}, {a: 0 for a in self.agents}, 0
        self.scores = {a: 0.0 for a in self.agents}
        self.agent_selection = self.agents[0]
        shared = self._reset(dict(options or {}))
        for a in self.agents:
            self.infos[a].update(shared)

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation, with its last invalid action's error on top."""
        text = self._observe(agent)
        error = self._errors.get(agent)
        return make_observation(f"Error: {error}\n\n{text}" if error else text)

    def step(self, action: Any) -> None:
        """Apply the selected agent's action (``None`` for an agent whose episode ended)."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        try:
            self._act(agent, action)
        except IllegalAction as e:
            self._errors[agent] = str(e)
            self._invalid[agent] += 1
            if self._invalid[agent] >= self.max_invalid:
                self.forfeit(agent, f"{self._invalid[agent]} invalid actions in a row ({e})")
        else:
            self._errors.pop(agent, None)
            self._invalid[agent] = 0
            self.moves += 1
        for a, r in self.rewards.items():
            self.scores[a] = self.scores.get(a, 0.0) + r
        self._accumulate_rewards()

    def render(self) -> str:
        """The selected agent's view, as text."""
        return self._observe(self.agent_selection) if self.agent_selection else ""

    def close(self) -> None:
        """Release the env's resources (none by default)."""

    @property
    def done(self) -> bool:
        """Whether every agent's episode has ended."""
        return all(self.terminations.get(a) or self.truncations.get(a) for a in self.agents)

    # -- async twins ---------------------------------------------------------------------------

    async def areset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Async twin of :meth:`reset` (runs in a worker thread)."""
        await asyncio.to_thread(self.reset, seed, options)

    async def astep(self, action: Any) -> None:
        """Async twin of :meth:`step` (runs in a worker thread)."""
        await asyncio.to_thread(self.step, action)


__all__ = ["IllegalAction", "MultiAgentEnv"]
