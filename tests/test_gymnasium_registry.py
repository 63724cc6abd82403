"""agentgym envs in Gymnasium's registry, ``env.unwrapped.spec`` like Gymnasium's, and reward
shaping as a wrapper applied by ``make``."""

from __future__ import annotations

import subprocess
import sys

import gymnasium

import agentgym
from agentgym.wrappers import RewardShaping, TurnLimit


def test_gymnasium_make_after_import_of_the_registration_module() -> None:
    code = (
        "import gymnasium\n"
        "env = gymnasium.make('agentgym.gymnasium_envs:sql/spider-lite-v0', split='test')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(env.spec.id, env.spec.max_episode_steps, env.unwrapped.spec.kwargs['split'])\n"
        "env2 = gymnasium.make('sql/spider-lite-v0')\n"
        "print(type(env2.unwrapped).__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["sql/spider-lite-v0", "10", "test", "SQLEnv"]


def test_make_sets_a_gymnasium_spec() -> None:
    env = agentgym.make("sql", split="test", max_turns=4)
    spec = env.unwrapped.spec
    assert isinstance(spec, gymnasium.envs.registration.EnvSpec)
    assert spec.id == "sql/spider-lite-v0" and spec.kwargs == {"split": "test"}
    assert spec.max_episode_steps == 4 and isinstance(env, TurnLimit)
    assert env.unwrapped.agentgym_spec.kwargs == {"split": "test"}
    assert "sql/spider-lite-v0" in gymnasium.envs.registration.registry
    env.close()


def test_reward_shaping_is_a_wrapper() -> None:
    calls = []

    def shape(env_id, task_id, reward, info):  # type: ignore[no-untyped-def]
        calls.append((env_id, task_id, reward))
        return reward * 0.5

    env = RewardShaping(agentgym.make("sql", split="test", max_turns=None), shape, "sql/x-v0")
    env.reset(seed=0)
    task = env.unwrapped.task
    _, reward, terminated, _, _ = env.step(
        [agentgym.ToolCall("submit", {"query": task.data["gold_sql"]})]
    )
    assert terminated and reward == 0.5 and calls == [("sql/x-v0", task.task_id, 1.0)]
    env.close()
