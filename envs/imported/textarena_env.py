"""TextArena's games as agentgym multi-agent envs: ``make("textarena:<game id>")``.

TextArena (``pip install 'agentgym[interop]'``) runs text games for one or more players; the
importer wraps one game in :class:`agentgym.MultiAgentEnv` (PettingZoo AEC) and maps:

- **agents**: ``player_0 .. player_{n-1}`` (``num_players``, default 2, as TextArena's ids
  0..n-1); ``agent_selection`` follows TextArena's ``current_player_id``.
- **observation**: the messages TextArena addressed to the agent since its last action, each
  as ``[GAME] ...`` / ``[Player 1] ...`` (the first holds the game's own prompt). TextArena's
  ``LLMObservationWrapper`` (the whole history every turn) is not applied: the chat history is
  the agent's own.
- **action**: text, a message dict, or a ``move`` tool call, passed as text through the game's
  default action wrappers (``ActionFormattingWrapper`` adds the ``[...]`` brackets TextArena's
  games expect). Moves the game rejects are TextArena's to judge: its own error allowance, then
  the game's penalty; an action that is not text at all is an
  :class:`~agentgym.IllegalAction` (asked again, forfeited after ``max_invalid``).
- **reward**: TextArena's end-of-game rewards (``close()``), per agent, at the last step; the
  game's reason goes to every agent's ``info["end_reason"]``.
- **seeds**: ``reset(seed=s)`` passes ``s`` to TextArena, which seeds Python's global ``random``
  (TextArena's games draw from it): one TextArena env per process at a time is reproducible.
- **tasks and splits**: none; each seed is a game, and ``split="test"`` offsets the seeds
  (:data:`SPLIT_SEEDS`) so held-out games never share a seed with ``train``.
- **random player**: ``legal_actions`` reads the bracketed moves a game lists
  (``Available Moves: '[0]', '[4]'``); games that list none have no random player.

``make("textarena:<id>", seat="player_0", opponent="random")`` is one seat of the game as a
single-agent env (:class:`agentgym.SeatEnv`), which ``agentgym eval`` runs.
"""

from __future__ import annotations

import re
from typing import Any

from agentgym import Tool, ToolSet
from agentgym.errors import ConfigError, EnvNotFound, missing_extra
from agentgym.multiagent import IllegalAction, MultiAgentEnv

from ..games.moves import move_text

SPLIT_SEEDS = {"train": 0, "test": 1_000_000_007}
"""Offset added to the seed of each split's games (TextArena has no task sets: a seed is a
game, and ``test`` games are drawn from seeds ``train`` never uses)."""
MAX_CHARS = 4000
"""Longer actions are refused before they reach the game."""
_MOVES_LINE = re.compile(r"(?:available|valid|legal)[^\n:]*:\s*(.+)", re.IGNORECASE)
_BRACKETED = re.compile(r"\[[^\[\]\n]{1,40}\]")


def _ta() -> Any:
    try:
        import textarena
    except ImportError as e:
        raise missing_extra("textarena", "interop") from e
    return textarena


def game_ids() -> list[str]:
    """Every game id TextArena registers (its ``-raw`` and ``-train`` variants left out)."""
    from textarena.envs.registration import ENV_REGISTRY

    _ta()
    return sorted(i for i in ENV_REGISTRY if not i.endswith(("-raw", "-train")))


def check_game(game: str) -> str:
    """``game`` when TextArena registers it, else :class:`EnvNotFound` with close ids."""
    import difflib

    ids = game_ids()
    if game not in ids:
        close = difflib.get_close_matches(game, ids, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise EnvNotFound(f"TextArena has no game {game!r} ({len(ids)} games){hint}")
    return game


def _move_tool() -> Tool:
    def move(move: str) -> str:
        """Play a move in the game's own format (for example ``[4]``).

        Args:
            move: The move, as the game's instructions ask for it.
        """
        return move

    return Tool.from_function(move)


def _action_text(action: Any) -> str:
    """The text of an action (:func:`~agentgym.envs.games.moves.move_text`), at most
    :data:`MAX_CHARS` long, or :class:`IllegalAction`."""
    text = move_text(action)
    if len(text) > MAX_CHARS:
        raise IllegalAction(f"the action is {len(text)} characters long (at most {MAX_CHARS})")
    return text


class TextArenaEnv(MultiAgentEnv):
    """One TextArena game for ``num_players`` agents (PettingZoo AEC)."""

    zero_sum = True

    def __init__(self, game: str, num_players: int = 2, split: str = "train",
                 **game_kwargs: Any) -> None:
        ta = _ta()
        check_game(game)
        if split not in SPLIT_SEEDS:
            raise ConfigError(f"split must be one of {', '.join(SPLIT_SEEDS)}, not {split!r}")
        if isinstance(num_players, bool) or not isinstance(num_players, int) or num_players < 1:
            raise ConfigError(f"num_players must be a positive integer, got {num_players!r}")
        from textarena.envs.registration import ENV_REGISTRY

        spec = ENV_REGISTRY[game]
        try:
            env = ta.make(game, **game_kwargs)
        except TypeError as e:  # an argument the game does not take
            raise ConfigError(f"textarena:{game}: {e}") from e
        while isinstance(env, ta.Wrapper):  # TextArena's own wrappers off; ours below
            env = env.env
        for wrapper in spec.default_wrappers or ():  # the action wrappers only
            if issubclass(wrapper, ta.ActionWrapper):
                env = wrapper(env)
        super().__init__()
        self.game = game
        self.split = split
        self.num_players = num_players
        self.ta_env = env
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._pending: dict[str, list[str]] = {}
        self._tools = ToolSet([_move_tool()])
        self.instructions = (f"You are playing TextArena's {game}. The game's messages say "
                             "the rules and the move format; reply with your move (or call "
                             "the `move` tool).")

    def instructions_for(self, agent: str) -> str:
        """The same short frame for every seat (the game's prompt is the first message)."""
        return self.instructions

    def tools_for(self, agent: str) -> ToolSet:
        """The ``move`` tool."""
        return self._tools

    def _state(self) -> Any:
        return self.ta_env.state

    def _drain(self) -> None:
        """Move every message TextArena queued for each player into that agent's pending list."""
        state = self._state()
        names = getattr(state, "role_mapping", {}) or {}
        for pid, queue in state.observations.items():
            agent = f"player_{pid}"
            if agent not in self._pending:
                continue
            for sender, message, _kind in queue:
                who = "GAME" if sender == _ta().GAME_ID else names.get(sender, f"Player {sender}")
                self._pending[agent].append(f"[{who}] {message}")
            state.observations[pid] = []

    def _select(self) -> None:
        self.agent_selection = f"player_{int(self._state().current_player_id)}"

    def _reset(self, options: dict[str, Any]) -> dict[str, Any]:
        seed = int(self.np_random.integers(2**31)) if "seed" not in options else int(
            options["seed"])
        seed += SPLIT_SEEDS[self.split]
        self.ta_env.reset(num_players=self.num_players, seed=seed)
        self._pending = {a: [] for a in self.possible_agents}
        self._drain()
        self._select()
        return {"game": self.game, "game_seed": seed, "split": self.split}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game; ``seed`` seeds TextArena (see the module docstring)."""
        opts = dict(options or {})
        if seed is not None:
            opts.setdefault("seed", seed)
        super().reset(seed=seed, options=opts)

    def _observe(self, agent: str) -> str:
        return "\n".join(self._pending.get(agent, [])) or "(no new messages)"

    def _act(self, agent: str, action: Any) -> None:
        text = _action_text(action)
        self._pending[agent] = []
        done, _info = self.ta_env.step(text)
        self._drain()
        if done:
            rewards, game_info = self.ta_env.close()
            rewards = rewards or {}
            reason = "; ".join(sorted({str(i.get("reason", "")) for i in game_info.values()
                                       if isinstance(i, dict) and i.get("reason")}))
            self.end({f"player_{p}": float(r) for p, r in rewards.items()},
                     reason or "game over")
            return
        self._select()

    def legal_actions(self, agent: str) -> list[str]:
        """The bracketed moves the game's latest message lists for ``agent`` (none: an error)."""
        for line in reversed("\n".join(self._pending.get(agent, [])).splitlines()):
            found = _MOVES_LINE.search(line)
            if found:
                moves = _BRACKETED.findall(found.group(1))
                if moves:
                    return list(dict.fromkeys(moves))
        raise NotImplementedError(f"TextArena's {self.game} lists no moves for a random player")

    def close(self) -> None:
        """Nothing to release (TextArena games hold no resources)."""


def make_env(game: str, seat: str | None = None, opponent: Any = None, **kwargs: Any) -> Any:
    """``make("textarena:<game>")``: the multi-agent env, or with ``seat``/``opponent`` one
    seat of it against that opponent (:class:`agentgym.SeatEnv`)."""
    env = TextArenaEnv(game, **kwargs)
    if seat is None and opponent is None:
        return env
    from agentgym.seat import SeatEnv

    return SeatEnv(env, seat=seat, opponent=opponent or "random")


__all__ = ["SPLIT_SEEDS", "TextArenaEnv", "check_game", "game_ids", "make_env"]
