"""The games family: rules, legal-move checks, scripted players, seat views and PettingZoo's own
API test on both games."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test

from agentgym import ToolCall
from agentgym.envs.games.kuhn import KuhnPokerEnv
from agentgym.envs.games.kuhn import load_tasks as kuhn_tasks
from agentgym.envs.games.tictactoe import TicTacToeEnv, winner
from agentgym.envs.games.tictactoe import load_tasks as ttt_tasks
from agentgym.seat import SeatEnv


@pytest.mark.parametrize("cls", [TicTacToeEnv, KuhnPokerEnv])
def test_pettingzoo_api_test_passes(cls) -> None:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # text observations are not numpy arrays
        api_test(cls(), num_cycles=30)


@pytest.mark.parametrize("load", [ttt_tasks, kuhn_tasks])
def test_splits_share_no_task(load) -> None:  # type: ignore[no-untyped-def]
    tasks = load()
    train, test = set(tasks.split("train").ids()), set(tasks.split("test").ids())
    assert train and test and not train & test


def test_tictactoe_rules_and_illegal_moves() -> None:
    env = TicTacToeEnv()
    env.reset(options={"task_id": "ttt-empty"})
    assert env.agent_selection == "x"
    env.step("I take the centre: 5")
    assert env.board[4] == "x" and env.agent_selection == "o"
    env.step("5")  # taken: o is asked again, with the error and the legal moves
    assert env.agent_selection == "o" and env.board.count("o") == 0
    text = env.observe("o")["text"]
    assert text.startswith("Error: no legal move") and "legal moves: 1, 2, 3, 4, 6" in text
    env.step(ToolCall("move", {"move": "1"}))
    assert env.board[0] == "o"
    for move in ("2", "9", "8"):  # x: 5 2 8 is a column
        env.step(move)
        if env.done:
            break
    assert env.done and env.scores == {"x": 1.0, "o": -1.0}
    assert winner(env.board) == "x"


def test_three_invalid_moves_forfeit() -> None:
    env = TicTacToeEnv()
    env.reset(options={"task_id": "ttt-empty"})
    for junk in ("", "x" * 10_000, {"role": "assistant", "content": None}):
        env.step(junk)
    assert env.done and env.scores == {"x": -1.0, "o": 1.0}
    assert "forfeited" in env.infos["x"]["end_reason"]


def test_scripted_tictactoe_never_loses_to_random() -> None:
    for seed in range(30):
        seat = SeatEnv(TicTacToeEnv(), seat="x" if seed % 2 else "o", opponent="random")
        obs, info = seat.reset(seed=seed)
        done = False
        while not done:
            obs, reward, done, truncated, info = seat.step(seat.env.scripted_action(seat.player))
            assert not truncated
        assert info["outcome"] in ("win", "draw"), (seed, info)


def test_kuhn_payoffs_are_zero_sum_and_follow_the_rules() -> None:
    env = KuhnPokerEnv(hands=1)
    env.reset(seed=0)
    cards = dict(env.cards)
    first = env.agent_selection
    second = next(a for a in env.possible_agents if a != first)
    env.step("bet")
    assert env.legal_actions(second) == ["fold", "call"]
    env.step("call")
    assert env.done
    high = max(cards, key=lambda a: "JQK".index(cards[a]))
    low = next(a for a in cards if a != high)
    assert env.scores[high] == 2.0 and env.scores[low] == -2.0
    env.reset(seed=0)
    env.step("check")
    env.step("bet")
    env.step("fold")  # the first player folds: the bettor takes 1
    assert env.scores[second] == 1.0 and env.scores[first] == -1.0


def test_seat_view_plays_the_opponent_and_reports_the_outcome() -> None:
    env = SeatEnv(KuhnPokerEnv(split="test"), seat="player_1")
    obs, info = env.reset(seed=5)
    assert info["seat"] == "player_1" and info["opponent"] == "scripted"
    assert "You are player_1" in obs["text"]
    total, done = 0.0, False
    while not done:
        obs, reward, done, truncated, info = env.step("call" if "call" in obs["text"] else "check")
        total += reward
    assert info["score"] == total and info["outcome"] in ("win", "loss", "draw")
    assert info["success"] == (total > 0)
    with pytest.raises(Exception, match="over"):
        env.step("check")


def test_seat_drawn_from_the_seed_covers_both_seats() -> None:
    seats = set()
    for seed in range(12):
        env = SeatEnv(TicTacToeEnv())
        seats.add(env.reset(seed=seed)[1]["seat"])
        again = SeatEnv(TicTacToeEnv())
        assert again.reset(seed=seed)[1]["seat"] == env.player  # seeded
    assert seats == {"x", "o"}


def test_sql_team_roles_see_different_views_and_share_the_reward() -> None:
    from agentgym.envs.sql.team import SQLTeamEnv

    env = SQLTeamEnv("test")
    env.reset(seed=0)
    planner, executor = env.observe("planner")["text"], env.observe("executor")["text"]
    assert "CREATE TABLE" in planner and "CREATE TABLE" not in executor
    assert len(env.tools_for("planner")) == 0
    assert env.tools_for("executor").names() == ["execute_sql", "submit"]
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.scripted_action(agent))
    assert env.scores == {"planner": 1.0, "executor": 1.0}

    seat = SeatEnv(SQLTeamEnv("test"), seat="executor")  # the planner: the scripted player
    obs, _ = seat.reset(seed=1)
    assert "Plan from the planner" in obs["text"]
    _, reward, done, _, info = seat.step("<answer>SELECT 1</answer>")
    assert done and reward == 0.0 and info["outcome"] == "failure"


def test_an_opponent_forfeiting_before_the_seat_acts_pays_at_the_first_step() -> None:
    from agentgym.opponents import Opponent

    class Junk(Opponent):
        name = "junk"

        async def act(self, env, agent, messages):  # type: ignore[no-untyped-def]
            return "no move here"

    env = SeatEnv(TicTacToeEnv(), seat="o", opponent=Junk())
    obs, info = env.reset(options={"task_id": "ttt-empty"})  # x (junk) moves first
    assert "Game over" in obs["text"] and "forfeited" in obs["text"]
    obs, reward, done, truncated, info = env.step("anything")
    assert (reward, done, truncated, info["outcome"]) == (1.0, True, False, "win")


def test_sql_team_planner_seat_is_rewarded_for_its_query_not_for_writing_something() -> None:
    import agentgym
    from agentgym.envs.sql.team import plan_query

    assert plan_query("Start with orders: ```sql\nSELECT COUNT(*) FROM orders;\n```") == \
        "SELECT COUNT(*) FROM orders"
    assert plan_query("count the orders") == ""
    env = agentgym.make("sql/team-vs-scripted-v0", seat="planner", split="test")
    try:
        env.reset(seed=0)
        _, reward, done, _, info = env.step("Count the rows of the main table.")  # no query
        assert not done and reward == 0.0 and "states no query" in info["error"]
        _, reward, done, _, info = env.step("SELECT 'not the answer'")  # a wrong query
        assert done and reward == 0.0 and info["outcome"] == "failure"
        obs, _ = env.reset(seed=0)
        gold = env.unwrapped.env.task.data["gold_sql"]
        _, reward, done, _, info = env.step(f"Plan: the gold.\n{gold}")
        assert done and reward == 1.0 and info["outcome"] == "success"
    finally:
        env.close()


def test_sql_team_executor_errors_reach_the_seats_info() -> None:
    import agentgym

    env = agentgym.make("sql/team-vs-scripted-v0", seat="executor", split="test")
    try:
        env.reset(seed=0)
        _, _, done, _, info = env.step("hello")
        assert not done and info["error"] == "no tool call"
        _, _, _, _, info = env.step("<sql>SELECT 1</sql>")
        assert "error" not in info
    finally:
        env.close()


def test_a_seat_env_shares_the_trainers_opponent_pool() -> None:
    """Checkpoints added to the pool after the env was made reach it; retired ones never play
    again (a retired checkpoint is closed: drawing it aborted the self-play run's episodes)."""
    from agentgym.envs.games.tictactoe import TicTacToeEnv
    from agentgym.opponents import OpponentPool, opponent_from_name

    pool = OpponentPool([opponent_from_name("scripted")])
    env = SeatEnv(TicTacToeEnv("test"), opponent=pool)
    random_player = opponent_from_name("random")
    pool.add(random_player, weight=1e9)  # as the trainer adds a checkpoint between steps
    env.reset(seed=0)
    assert env.opponent is random_player
    pool.entries[:] = [e for e in pool.entries if e.opponent is not random_player]  # retired
    drawn = set()
    for seed in range(20):
        env.reset(seed=seed)
        drawn.add(env.opponent.name)
    assert drawn == {"scripted"}
    env.close()
