"""TextArena's games through ``make("textarena:<game id>")``: multi-agent contract, a game
played to its end, TextArena's own invalid-move rules, one seat against a random player."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.cli import app
from agentgym.testing import check_env

pytest.importorskip("textarena")

runner = CliRunner()
GAME = "textarena:TicTacToe-v0"


def test_a_textarena_game_passes_the_multiagent_check() -> None:
    env = agentgym.make(GAME)
    assert isinstance(env, agentgym.MultiAgentEnv)
    check_env(env)  # PettingZoo's api_test, determinism, 200 malformed actions
    assert env.possible_agents == ["player_0", "player_1"]
    assert [t.name for t in env.tools_for("player_0")] == ["move"]


def test_a_game_played_to_the_end_pays_textarenas_rewards() -> None:
    env = agentgym.make(GAME)
    env.reset(seed=0)
    first = env.agent_selection
    assert "Tic Tac Toe" in env.observe(first)["text"]
    for cell in (0, 3, 1, 4):
        env.step(f"I play [{cell}]")
    env.step({"content": "", "tool_calls": [{"name": "move", "arguments": {"move": "[2]"}}]})
    assert env.done
    second = next(a for a in env.agents if a != first)
    assert env.scores == {first: 1.0, second: -1.0}
    assert "won" in env.infos[first]["end_reason"]


def test_invalid_moves_follow_textarenas_rules_and_non_text_is_asked_again() -> None:
    env = agentgym.make(GAME)
    env.reset(seed=1)
    mover = env.agent_selection
    env.step({"tool_calls": [{"name": "shoot", "arguments": {}}]})  # not a move at all
    assert env.agent_selection == mover
    assert env.observe(mover)["text"].startswith("Error: unknown tool 'shoot'")
    env.step("nonsense")  # text: TextArena judges it (one error allowed, then a loss)
    assert "invalid move" in env.observe(mover)["text"]
    assert not env.done
    env.step("still nonsense")
    assert env.done and env.scores[mover] == -1.0


def test_seeds_and_splits_pick_games() -> None:
    env = agentgym.make("textarena:Nim-v0")
    env.reset(seed=3)
    assert env.infos["player_0"]["game_seed"] == 3
    test = agentgym.make("textarena:Nim-v0", split="test")
    test.reset(seed=3)
    assert test.infos["player_0"]["game_seed"] != 3
    with pytest.raises(agentgym.ConfigError, match="split"):
        agentgym.make(GAME, split="dev")
    with pytest.raises(agentgym.EnvNotFound, match="did you mean TicTacToe-v0"):
        agentgym.make("textarena:TicTacToe-v9")


def test_one_seat_against_a_random_player_is_a_single_agent_env() -> None:
    env = agentgym.make(GAME, opponent="random")
    assert isinstance(env.unwrapped, agentgym.SeatEnv)
    check_env(env)
    env.reset(seed=2)
    legal = env.unwrapped.env.legal_actions(env.unwrapped.player)
    assert legal and all(m.startswith("[") for m in legal)


def test_eval_runs_a_seat_with_a_random_policy() -> None:
    result = runner.invoke(app, ["eval", GAME, "--policy", "random", "-n", "3",
                                 "--env-arg", "opponent=random"])
    assert result.exit_code == 0, result.output
    assert "(0/3 completed)" in result.output or "/3 completed)" in result.output
