"""One seat of a multi-agent env as an ordinary single-agent env.

:class:`SeatEnv` plays a :class:`~agentgym.MultiAgentEnv` from one agent's seat: ``step`` applies
the learner's action, then lets the opponents (see :mod:`agentgym.opponents`) play every other
seat until it is the learner's turn again or the game is over. The reward of a step is the sum
of the learner's rewards over those moves, so the rollout engine, the evaluator and every trainer
work on a multi-agent env unchanged: against a scripted player, against a pool of checkpoints,
or in self-play (the opponent is the policy being trained).

The seat is fixed (``seat="x"``) or, with ``seat=None``, drawn per episode from the reset seed
(so a GRPO group of one task and seed plays one seat, and a batch covers both); ``options={"seat":
...}`` picks it for one episode. The first observation names the seat; the instructions are the
env's for the first agent unless ``seat`` is fixed, so envs whose roles differ should fix it.
"""

from __future__ import annotations

from typing import Any

from .env import AgentEnv, Observation, StepResult
from .errors import EnvError
from .multiagent import MultiAgentEnv
from .opponents import Opponent, OpponentPool, opponent_from_name


class SeatEnv(AgentEnv):
    """A single-agent view of one seat of ``env``; opponents play the other seats."""

    def __init__(self, env: MultiAgentEnv, seat: str | None = None,
                 opponent: Opponent | OpponentPool | str = "scripted",
                 max_opponent_moves: int = 64) -> None:  # fmt: skip
        super().__init__()
        if seat is not None and seat not in env.possible_agents:
            raise EnvError(f"no seat {seat!r}: choose one of {env.possible_agents}")
        self.env = env
        self.seat = seat
        # a pool is shared, not copied: checkpoints the trainer adds (or retires and closes)
        # later reach every env made earlier
        self.opponents = opponent if isinstance(opponent, OpponentPool) else OpponentPool(
            [opponent_from_name(opponent) if isinstance(opponent, str) else opponent])
        self.max_opponent_moves = max_opponent_moves
        first = seat or env.possible_agents[0]
        self.instructions = env.instructions_for(first)
        self.tools = env.tools_for(first)
        self.player = first
        self.opponent: Opponent | None = None
        self._histories: dict[str, list[dict[str, Any]]] = {}
        self._done = True
        self._pending = 0.0

    @property
    def reward_probe_exemptions(self) -> dict[str, str]:
        """The game's opt-outs of reward probe classes, with reasons (``check_rewards``)."""
        return dict(getattr(self.env, "reward_probe_exemptions", None) or {})

    @property
    def task(self) -> Any:
        """The wrapped env's current task (for the expert protocol and the evaluator)."""
        return getattr(self.env, "task", None)

    def expert_actions(self, task: Any) -> list[Any]:
        """The scripted player in this seat: one callable per move, each asking the env for
        its scripted action in the position it is in then (the scripted policy calls them)."""

        def move(_observation: str) -> Any:
            return self.env.scripted_action(self.player)

        return [move] * self.max_opponent_moves

    @property
    def task_set(self) -> Any:
        """The wrapped env's tasks (for the evaluator and the trainers' samplers)."""
        return getattr(self.env, "task_set", None)

    async def _areset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        agents = self.env.possible_agents
        seat = options.pop("seat", None) or self.seat
        if seat is None:
            seat = agents[int(self.np_random.integers(len(agents)))]
        if seat not in agents:
            raise EnvError(f"no seat {seat!r}: choose one of {agents}")
        self.player = seat
        self.opponent = self.opponents.draw(self.np_random)
        await self.env.areset(seed=int(self.np_random.integers(2**31)), options=options)
        self._histories = {a: [{"role": "system", "content": self.env.instructions_for(a)}]
                           for a in agents if a != seat}  # fmt: skip
        self._done = False
        # rewards of the opening moves (an opponent that forfeits before the seat acts) are
        # paid with the seat's first step, which then ends the episode
        self._pending = await self._play_others()
        return self._observation(), self._info()

    async def _astep(self, action: Any) -> StepResult:
        if self._done:
            raise EnvError("the episode is over; call reset()")
        env = self.env
        reward, self._pending = self._pending, 0.0
        if env.done:  # the game ended before the seat's first move
            self._done = True
            return self._observation(), float(reward), True, False, self._info()
        if env.agent_selection != self.player:
            raise EnvError(f"it is {env.agent_selection}'s turn, not {self.player}'s")
        await env.astep(action)
        reward += env.rewards.get(self.player, 0.0)
        reward += await self._play_others()
        terminated = bool(env.terminations.get(self.player))
        truncated = bool(env.truncations.get(self.player))
        self._done = terminated or truncated
        return self._observation(), float(reward), terminated, truncated, self._info()

    async def _play_others(self) -> float:
        """Let the opponents move until it is the seat's turn or the game is over; return the
        seat's reward over those moves."""
        env, reward = self.env, 0.0
        for _ in range(self.max_opponent_moves):
            if env.done or env.agent_selection == self.player:
                return reward
            agent = env.agent_selection
            history = self._histories[agent]
            history.append({"role": "user", "content": env.observe(agent)["text"]})
            assert self.opponent is not None  # set by reset
            action = await self.opponent.act(env, agent, history)
            text = action if isinstance(action, str) else str(
                action.get("content", "") if isinstance(action, dict) else action)
            history.append({"role": "assistant", "content": text})
            await env.astep(action)
            reward += env.rewards.get(self.player, 0.0)
        raise EnvError(f"the opponents made {self.max_opponent_moves} moves in a row without "
                       "giving the turn back")

    def _observation(self) -> Observation:
        obs = self.env.observe(self.player)
        if self.env.done:
            return {"text": f"{obs['text']}\n\nGame over: {self._end_reason()}",
                    "images": obs["images"]}
        return obs

    def _end_reason(self) -> str:
        return str(self.env.infos.get(self.player, {}).get("end_reason", "the game ended"))

    def _info(self) -> dict[str, Any]:
        env = self.env
        info = dict(env.infos.get(self.player, {}))
        info.update(seat=self.player, opponent=self.opponent.name if self.opponent else None,
                    moves=env.moves)
        error = env._errors.get(self.player)
        if error:
            info["error"] = error
        if env.done:
            score = env.scores.get(self.player, 0.0)
            info["score"] = score
            if env.zero_sum:
                info["outcome"] = "win" if score > 0 else "loss" if score < 0 else "draw"
            else:
                info["outcome"] = "success" if score > 0 else "failure"
            info["success"] = score > 0
        return info

    async def _aclose(self) -> None:
        self.env.close()


__all__ = ["SeatEnv"]
