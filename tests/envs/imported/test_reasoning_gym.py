"""reasoning-gym's generators through ``make("reasoning-gym:<task>")``: contract, scoring,
splits, turn limit, audit and the CLI."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.cli import app
from agentgym.testing import check_env
from agentgym.testing.rewards import check_rewards

pytest.importorskip("reasoning_gym")

runner = CliRunner()
TASK = "reasoning-gym:leg_counting"


def _gold(env: agentgym.AgentEnv) -> str:
    return str(env.unwrapped.task.data["answer"])


def test_an_imported_task_passes_check_env() -> None:
    env = agentgym.make(TASK)
    check_env(env)
    assert env.unwrapped.agentgym_spec.id == TASK
    assert [t.name for t in env.unwrapped.tools] == ["answer"]
    assert "<answer>" in env.unwrapped.instructions  # reasoning-gym's own system prompt


@pytest.mark.parametrize("form", ["text", "tags", "tool"])
def test_the_gold_answer_scores_one_in_every_form(form: str) -> None:
    env = agentgym.make(TASK)
    env.reset(seed=4)
    gold = _gold(env)
    action = {"text": gold, "tags": f"Counting... <answer>{gold}</answer>",
              "tool": {"content": "", "tool_calls": [
                  {"name": "answer", "arguments": {"value": gold}}]}}[form]
    _, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
    assert info["answer"] == gold


def test_a_wrong_answer_scores_zero_and_ends_the_episode() -> None:
    env = agentgym.make(TASK)
    env.reset(seed=4)
    wrong = str(int(_gold(env)) + 1)
    _, reward, terminated, _, info = env.step(f"<answer>{wrong}</answer>")
    assert (reward, terminated, info["success"]) == (0.0, True, False)


def test_splits_share_no_question_and_seeds_pick_the_same_task() -> None:
    train = agentgym.make(TASK, train_size=50, test_size=20).unwrapped
    test = agentgym.make(TASK, split="test", train_size=50, test_size=20).unwrapped
    assert len(train.task_set) == 50 and 0 < len(test.task_set) <= 20
    questions = {t.prompt for t in train.task_set}
    assert not questions & {t.prompt for t in test.task_set}
    first = train.reset(seed=7)[0]["text"]
    assert train.reset(seed=7)[0]["text"] == first
    assert test.reset(options={"task_id": test.task_set.ids()[0]})[1]["split"] == "test"


def test_the_turn_limit_is_the_specs_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    env = agentgym.make(TASK)
    assert env.spec.max_episode_steps == 1
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(
        '<tool_call>{"name": "nope", "arguments": {}}</tool_call>')
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert "unknown tool" in info["error"].lower() or "nope" in info["error"]
    longer = agentgym.make(TASK, max_turns=3)
    assert longer.spec.max_episode_steps == 3


def test_unknown_tasks_and_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(agentgym.EnvNotFound, match="did you mean leg_counting"):
        agentgym.make("reasoning-gym:leg_countin")
    with pytest.raises(agentgym.EnvNotFound, match="names no env"):
        agentgym.make("reasoning-gym:")
    with pytest.raises(agentgym.ConfigError, match="bad config"):
        agentgym.make(TASK, config={"no_such_field": 1})
    with pytest.raises(agentgym.ConfigError, match="reward must be"):
        agentgym.make(TASK, reward="partial")
    with pytest.raises(agentgym.ConfigError, match="system_prompt must be one of"):
        agentgym.make(TASK, system_prompt="pirate")
    direct = agentgym.make(TASK, system_prompt="direct").unwrapped
    assert "Do not return any preamble" in direct.instructions  # reasoning-gym's own prompt


def test_a_scorer_that_raises_is_a_wrong_answer_not_a_crash(
        monkeypatch: pytest.MonkeyPatch) -> None:
    env = agentgym.make(TASK, train_size=5, test_size=5)
    env.reset(seed=0)

    def broken(answer: str, entry: dict) -> float:
        raise KeyError("metadata")

    monkeypatch.setattr(env.unwrapped._data["train"], "score_answer", broken)
    _, reward, terminated, _, info = env.step("<answer>1</answer>")
    assert (reward, terminated) == (0.0, True)
    assert "KeyError" in info["score_error"]


def test_the_audit_finds_partial_credit_and_exact_rewards_fix_it() -> None:
    """basic_arithmetic keeps reasoning-gym's default scorer, which pays len(gold)/len(reply)
    to a reply containing the gold answer; leg_counting scores exactly."""
    assert check_rewards(TASK, seeds=3).passed
    native = check_rewards("reasoning-gym:basic_arithmetic", seeds=3)
    assert not native.passed
    assert "list of candidates" in {p.name for p in native.failures}
    assert check_rewards("reasoning-gym:basic_arithmetic", seeds=3, reward="exact").passed


def test_eval_and_audit_from_the_command_line() -> None:
    result = runner.invoke(app, ["eval", TASK, "--policy", "scripted", "-n", "3"])
    assert result.exit_code == 0, result.output
    assert "100.0% (3/3 completed)" in result.output
    result = runner.invoke(app, ["audit", "reasoning-gym:basic_arithmetic"])
    assert result.exit_code == 2, result.output
    assert "list of candidates" in result.output and "FAIL" in result.output
    result = runner.invoke(app, ["audit", "reasoning-gym:basic_arithmetic",
                                 "--env-arg", "reward=exact"])
    assert result.exit_code == 0, result.output
