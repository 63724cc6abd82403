"""OpenEnv servers through ``make("openenv:<url>")``: the contract against an OpenEnv-protocol
server, rejected actions as error observations, a dead or dying server as ``aborted``."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.cli import app
from agentgym.testing import check_env

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from serve.servers import ThreadServer, free_port  # noqa: E402

runner = CliRunner()


@pytest.fixture
def served() -> Iterator[ThreadServer]:
    """``arith/add-v0`` behind an OpenEnv-protocol server (``agentgym serve --http``'s app)."""
    from agentgym.serve import create_app

    server = ThreadServer(create_app(["arith/add-v0"], max_sessions=300, idle_timeout_s=600))
    server.start()
    yield server
    server.stop()


def test_an_openenv_server_passes_check_env(served: ThreadServer) -> None:
    env = agentgym.make(f"openenv:{served.url}")
    assert env.spec is None or env.spec.max_episode_steps in (None, 10)
    assert env.unwrapped.text_field == "content"  # the action schema's one string field
    assert [t.name for t in env.unwrapped.tools] == ["act"]
    check_env(env, n_malformed=60)
    env.close()


def test_rewards_and_done_come_from_the_server(served: ThreadServer) -> None:
    env = agentgym.make(f"openenv:{served.url}")
    obs, info = env.reset(seed=0)
    task_id = info["server_metadata"]["info"]["task_id"]  # add-A-B
    a, b = (int(x) for x in task_id.split("-")[1:])
    _, reward, terminated, truncated, info = env.step(
        {"tool_calls": [{"name": "act", "arguments": {"content": str(a + b)}}]})
    assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
    env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(str(a + b + 1))  # text fills the `content` field
    assert (reward, terminated) == (0.0, True)
    env.close()


def test_an_action_the_server_rejects_is_an_error_observation(served: ThreadServer) -> None:
    env = agentgym.make(f"openenv:{served.url}")
    env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(
        {"tool_calls": [{"name": "act", "arguments": {"bogus": 1}}]})
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert obs["text"].startswith("Error: VALIDATION_ERROR") and "aborted" not in info
    obs, *_ = env.step({"tool_calls": [{"name": "jump", "arguments": {}}]})
    assert "unknown tool 'jump'" in obs["text"]
    env.close()


def test_a_server_dying_mid_episode_aborts_it(served: ThreadServer) -> None:
    env = agentgym.make(f"openenv:{served.url}")
    env.reset(seed=2)
    served.stop()
    _, reward, terminated, truncated, info = env.step("5")
    assert (reward, terminated, truncated, info["aborted"]) == (0.0, False, True, True)
    assert "OpenEnv server" in info["abort_reason"]
    env.close()


def test_a_server_dying_mid_episode_aborts_it_on_the_async_path(served: ThreadServer) -> None:
    env = agentgym.make(f"openenv:{served.url}")

    async def play() -> tuple:
        await env.unwrapped.areset(seed=2)
        served.stop()
        return await env.unwrapped.astep("5")

    _, reward, terminated, truncated, info = asyncio.run(play())
    assert (reward, terminated, truncated, info["aborted"]) == (0.0, False, True, True)
    assert "OpenEnv server" in info["abort_reason"]
    env.close()


def test_sync_and_async_episodes_take_turns_on_one_env(served: ThreadServer) -> None:
    """reset/step use a blocking connection, areset/astep an asyncio one; an episode keeps the
    transport its reset chose, and the next episode may take the other one."""
    env = agentgym.make(f"openenv:{served.url}").unwrapped

    def answer(info: dict) -> str:
        a, b = (int(x) for x in info["server_metadata"]["info"]["task_id"].split("-")[1:])
        return str(a + b)

    async def async_episode(seed: int) -> float:
        _, info = await env.areset(seed=seed)
        return (await env.astep(answer(info)))[1]

    rewards = []
    for seed in range(3):
        _, info = env.reset(seed=seed)
        rewards.append(env.step(answer(info))[1])
        rewards.append(asyncio.run(async_episode(seed)))
    assert rewards == [1.0] * 6
    assert env._loop is None  # the sync calls never hopped to a loop thread
    env.close()
    assert env._sws is None


def test_eval_against_a_dead_server_aborts_every_episode() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    env = agentgym.make(f"openenv:{url}")  # making needs no server
    with pytest.raises(agentgym.InfrastructureError, match="cannot read"):
        env.reset(seed=0)
    result = runner.invoke(app, ["eval", f"openenv:{url}", "--policy", "random", "-n", "2"])
    assert result.exit_code == 1
    assert "every episode aborted" in result.output and "infrastructure" in result.output


def test_eval_runs_through_the_importer(served: ThreadServer) -> None:
    result = runner.invoke(app, ["eval", f"openenv:{served.url}", "--policy", "random",
                                 "-n", "3"])
    assert result.exit_code == 0, result.output
    assert "/3 completed)" in result.output and "0 of 3" in result.output  # none aborted


def test_bad_urls_are_clear_errors() -> None:
    with pytest.raises(agentgym.ConfigError, match="http"):
        agentgym.make("openenv:ftp://example")
    with pytest.raises(agentgym.EnvNotFound, match="names no env"):
        agentgym.make("openenv:")
