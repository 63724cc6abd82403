"""SkyRL-gym's own envs (gsm8k, gsm8k_multi_turn) through ``make("skyrl-gym:<env id>")``:
contract, SkyRL's rewards, splits, malformed actions, faults, refusals, audit and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.cli import app
from agentgym.errors import ConfigError, EnvNotFound
from agentgym.testing import check_env
from agentgym.testing.rewards import check_rewards

pytest.importorskip("skyrl_gym")

runner = CliRunner()


def _rows(multi: bool = False) -> list[dict[str, Any]]:
    """SkyRL dataset rows, as SkyRL's gsm8k preprocessing writes them (data in the call)."""
    return [{"prompt": [{"role": "system", "content": "Think, then answer."},
                        {"role": "user", "content": f"What is {a} plus {b}? "
                         "End with '#### <answer>'."}],
             "env_class": "gsm8k_multi_turn" if multi else "gsm8k",
             "reward_spec": {"method": "rule", "ground_truth": str(a + b)},
             "extra_info": {"max_turns": 3} if multi else {}}
            for a in range(4) for b in range(5)]


def _truth(env: agentgym.AgentEnv) -> str:
    return str(env.unwrapped.task.data["row"]["reward_spec"]["ground_truth"])


def test_skyrl_gsm8k_passes_check_env_and_pays_skyrl_rewards() -> None:
    env = agentgym.make("skyrl-gym:gsm8k", tasks=_rows())
    check_env(env)
    assert env.unwrapped.agentgym_spec.max_turns == 1
    assert [t.name for t in env.unwrapped.tools] == ["reply"]
    obs, info = env.reset(seed=3)
    assert obs["text"].startswith("[system] Think, then answer.") and "plus" in obs["text"]
    _, reward, terminated, _, info = env.step(f"so #### {_truth(env)}")
    assert (reward, terminated, info["success"]) == (1.0, True, True)
    env.reset(seed=3)
    call = {"content": "", "tool_calls": [{"name": "reply", "arguments": {"text": "#### 99"}}]}
    _, reward, terminated, _, info = env.step(call)
    assert (reward, terminated, info["success"]) == (0.0, True, False)
    env.reset(seed=3)
    _, reward, terminated, _, _ = env.step(_truth(env))  # no '####': SkyRL's strict parse
    assert (reward, terminated) == (0.0, True)


def test_multi_turn_rewards_arrive_per_step_and_the_env_ends_the_episode() -> None:
    env = agentgym.make("skyrl-gym:gsm8k_multi_turn", tasks=_rows(multi=True))
    check_env(env)
    assert env.unwrapped.agentgym_spec.max_turns is None  # agentgym's default limit
    env.reset(seed=0)
    obs, reward, terminated, _, _ = env.step("#### 999")
    assert reward == pytest.approx(0.2 / 3) and not terminated  # SkyRL's format score
    assert "#### ANSWER" in obs["text"]  # the env's own next message
    _, reward, terminated, _, info = env.step(f"#### {_truth(env)}")
    assert (reward, terminated, info["success"]) == (1.0, True, True)
    env.reset(seed=0)
    for _ in range(2):
        assert not env.step("no answer")[2]
    _, reward, terminated, _, _ = env.step("still none")  # the row's max_turns=3: SkyRL's done
    assert (reward, terminated) == (0.0, True)


def test_malformed_actions_are_error_observations() -> None:
    env = agentgym.make("skyrl-gym:gsm8k_multi_turn", tasks=_rows(multi=True), max_turns=10)
    env.reset(seed=1)
    for bad in (None, 12, {"content": "", "tool_calls": [{"name": "reply", "arguments": {}}]},
                {"content": "", "tool_calls": [{"name": "nope", "arguments": {}}]},
                "x" * 200_001):
        obs, reward, terminated, truncated, info = env.step(bad)
        assert obs["text"].startswith("Error") and "error" in info
        assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.step(f"#### {_truth(env)}")[1] == 1.0  # the episode went on


def test_splits_seeds_and_data_files(tmp_path: Path) -> None:
    rows = _rows()
    data = tmp_path / "gsm8k.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows))
    train = agentgym.make("skyrl-gym:gsm8k", data=str(data), seed=1, test_size=5)
    test = agentgym.make("skyrl-gym:gsm8k", tasks=rows, seed=1, test_size=5, split="test")
    tr = {t.prompt for t in train.unwrapped.task_set}
    te = {t.prompt for t in test.unwrapped.task_set}
    assert (len(tr), len(te)) == (15, 5) and not tr & te
    other = agentgym.make("skyrl-gym:gsm8k", tasks=rows, seed=2, test_size=5, split="test")
    assert {t.prompt for t in other.unwrapped.task_set} != te
    a, _ = train.reset(seed=7)
    b, _ = agentgym.make("skyrl-gym:gsm8k", data=str(data), seed=1, test_size=5).reset(seed=7)
    assert a == b


def test_what_cannot_be_imported_is_refused_with_the_reason() -> None:
    with pytest.raises(ConfigError, match="Hugging Face Hub"):
        agentgym.make("skyrl-gym:gsm8k")
    with pytest.raises(ConfigError, match="reward_spec"):
        agentgym.make("skyrl-gym:gsm8k", tasks=[{"prompt": "1+1?"}])
    with pytest.raises(ConfigError, match="without a sandbox"):
        agentgym.make("skyrl-gym:lcb", tasks=_rows())
    with pytest.raises(ConfigError, match="retrieval server"):
        agentgym.make("skyrl-gym:search", tasks=_rows())
    with pytest.raises(EnvNotFound, match="gsm8k"):
        agentgym.make("skyrl-gym:gsm9k", tasks=_rows())


def test_an_os_fault_of_the_env_aborts_the_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    env = agentgym.make("skyrl-gym:gsm8k", tasks=_rows())
    env.reset(seed=0)

    def down(action: str) -> Any:
        raise ConnectionError("database server closed the connection")

    monkeypatch.setattr(env.unwrapped._env, "step", down)
    _, reward, terminated, truncated, info = env.step("#### 1")
    assert (reward, terminated, truncated, info["aborted"]) == (0.0, False, True, True)
    assert "database server closed" in info["abort_reason"]


def test_audit_eval_and_importers_from_the_command_line(tmp_path: Path) -> None:
    assert check_rewards("skyrl-gym:gsm8k", seeds=3, tasks=_rows()).passed
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in _rows(multi=True)))
    arg = f"data={data}"
    result = runner.invoke(app, ["eval", "skyrl-gym:gsm8k_multi_turn", "--policy", "scripted",
                                 "-n", "4", "--env-arg", arg])
    assert result.exit_code == 0, result.output
    assert "100.0% (4/4 completed)" in result.output
    result = runner.invoke(app, ["audit", "skyrl-gym:gsm8k_multi_turn", "--cheap",
                                 "--env-arg", arg])
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output
    result = runner.invoke(app, ["importers", "skyrl-gym"])
    assert result.exit_code == 0
    assert {"skyrl-gym:gsm8k", "skyrl-gym:gsm8k_multi_turn"} <= set(result.output.split())
    table = runner.invoke(app, ["importers"]).output
    assert "installed tasksets" in table  # verifiers' count column
