"""GEM's own envs (PyPI gem-llm: game:GuessTheNumber, game:Sudoku) through
``make("gem:<GEM id>")``, played in GEM's worker (``.venv-gem``): contract, GEM's rewards and
rules, seeds and splits, malformed actions, a dead worker, refusals, audit and the CLI."""

from __future__ import annotations

import os
import re
import signal

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.errors import ConfigError, EnvNotFound
from agentgym.testing import check_env
from agentgym.testing.rewards import check_rewards

from agentgym.cli import app  # isort: skip
from agentgym.envs.imported import gem_client  # isort: skip

pytestmark = pytest.mark.skipif(not gem_client.available(),
                                reason="GEM's environment: bash scripts/setup_gem_venv.sh")
runner = CliRunner()
GUESS = "gem:game:GuessTheNumber-v0-easy"


def _bisect(env: agentgym.AgentEnv, seed: int) -> tuple[float, bool, list[str]]:
    """Play GuessTheNumber by bisection, reading GEM's hints; (last reward, success, texts)."""
    obs, _ = env.reset(seed=seed)
    lo, hi = (int(x) for x in re.search(r"between (\d+) and (\d+)", obs["text"]).groups())
    texts = [obs["text"]]
    while True:
        guess = (lo + hi) // 2
        obs, reward, terminated, truncated, info = env.step(f"I guess \\boxed{{{guess}}}")
        texts.append(obs["text"])
        if terminated or truncated:
            return reward, bool(info["success"]), texts
        if f"higher than {guess}" in obs["text"]:
            lo = guess + 1
        else:
            hi = guess - 1


def test_guess_the_number_passes_check_env_and_pays_gems_rewards() -> None:
    env = agentgym.make(GUESS)
    check_env(env)
    assert env.unwrapped.agentgym_spec.max_turns == 4  # GEM's registered limit
    assert [t.name for t in env.unwrapped.tools] == ["reply"]
    reward, success, texts = _bisect(env, seed=5)
    assert (reward, success) == (1.0, True)  # bisection finds 1..10 within 4 guesses
    assert "Congratulations" in texts[-1] and "Enter your next guess." not in texts[-1]
    env.reset(seed=5)
    _, reward, terminated, _, _ = env.step("seven")  # no \boxed{}: GEM's format error
    assert (reward, terminated) == (-0.1, True)


def test_seeds_and_splits_are_gems_episodes() -> None:
    a, b = agentgym.make(GUESS), agentgym.make(GUESS)
    assert _bisect(a, seed=3)[2] == _bisect(b, seed=3)[2]  # same seed: the same game
    seen = {tuple(_bisect(a, seed=s)[2]) for s in range(6)}
    assert len(seen) > 1
    test = agentgym.make(GUESS, split="test", test_size=5)
    _, info = test.reset(seed=0)
    assert info["task_id"].startswith("game:GuessTheNumber-v0-easy/test/")
    seeds = {t.data["seed"] for t in test.unwrapped.task_set}
    assert not seeds & {t.data["seed"] for t in a.unwrapped.task_set}


def test_malformed_actions_are_error_observations_gem_never_sees() -> None:
    env = agentgym.make("gem:game:Sudoku-v0-easy", max_turns=30)
    check_env(env)
    env.reset(seed=0)
    for bad in (None, 12, {"content": "", "tool_calls": [{"name": "reply", "arguments": {}}]},
                "x" * 200_001):
        obs, reward, terminated, truncated, info = env.step(bad)
        assert obs["text"].startswith("Error") and "error" in info
        assert (reward, terminated, truncated) == (0.0, False, False)


def test_what_cannot_be_imported_is_refused_with_the_reason() -> None:
    with pytest.raises(ConfigError, match="Hugging Face Hub"):
        agentgym.make("gem:math:GSM8K")
    with pytest.raises(ConfigError, match="words"):  # NLTK's corpus: not on the index
        agentgym.make("gem:game:Wordle-v0-easy")
    with pytest.raises(EnvNotFound):
        agentgym.make("gem:game:Nope-v0")


def test_a_dead_worker_aborts_the_episode_and_the_next_reset_starts_one() -> None:
    env = agentgym.make(GUESS)
    env.reset(seed=1)
    pid = gem_client.worker().pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    _, reward, terminated, truncated, info = env.step("\\boxed{5}")
    assert (reward, terminated, truncated, info["aborted"]) == (0.0, False, True, True)
    assert "GEM" in info["abort_reason"]
    assert _bisect(env, seed=1)[1]  # a fresh worker
    assert gem_client.worker().pid != pid


def test_audit_random_eval_and_importers_from_the_command_line() -> None:
    # GEM's instructions show an example guess (\boxed{N}, N drawn in the range): echoing
    # them plays it, and any valid guess beats doing nothing (GEM's format error, -0.1).
    audit = check_rewards(GUESS, seeds=3, cheap=True)
    assert {p.name for p in audit.failures} == {"question echoed"}
    assert audit.baseline == pytest.approx(-0.1)
    result = runner.invoke(app, ["eval", GUESS, "--policy", "random", "-n", "4"])
    assert result.exit_code == 0, result.output
    # random words never hold \boxed{}: GEM's format error on the first turn, never aborted
    assert "0.0% (0/4 completed)" in result.output and "-0.100" in result.output
    result = runner.invoke(app, ["audit", GUESS, "--cheap"])
    assert result.exit_code == 2, result.output
    assert "question echoed" in result.output and "FAIL" in result.output
    result = runner.invoke(app, ["importers", "gem"])
    assert result.exit_code == 0
    ids = set(result.output.split())
    assert {GUESS, "gem:game:Sudoku-v0-easy", "gem:rg:leg_counting"} <= ids
    assert "gem:math:GSM8K" not in ids  # a Hub dataset: not offered
