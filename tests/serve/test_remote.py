"""``make("remote:URL")``: a served env used like a local one, and what a server restart does."""

from __future__ import annotations

import asyncio
import time

import pytest

from agentgym import EnvError, ResetNeeded, make
from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig
from agentgym.serve import RemoteEnv, RemoteEnvError

from .servers import ThreadServer, free_port, server_process

SELECT_1 = '<tool_call>{"name": "execute_sql", "arguments": {"query": "SELECT 1"}}</tool_call>'


def _adder(messages, episode):
    text = messages[-1]["content"]
    a, b = (int(x) for x in text.split("Compute ")[1].split(".")[0].split(" + "))
    return str(a + b)


def test_remote_env_looks_local_sync(http_url):
    env = make(f"remote:{http_url}/arith/add-v0")
    local = make("arith")
    assert isinstance(env.unwrapped, RemoteEnv)
    assert env.instructions == local.instructions
    assert env.tools.to_openai() == local.tools.to_openai()
    assert env.task_set.ids() == local.unwrapped.task_set.ids()
    obs, info = env.reset(seed=11)
    local_obs, local_info = local.reset(seed=11)
    assert obs == local_obs and info == local_info
    obs, reward, terminated, truncated, info = env.step(_adder([{"content": obs["text"]}], None))
    assert (reward, terminated, info["success"]) == (1.0, True, True)
    with pytest.raises(ResetNeeded):
        env.step("1")
    env.close()
    local.close()


async def test_remote_env_async_concurrent_episodes(http_url):
    envs = [make(f"remote:{http_url}") for _ in range(4)]
    firsts = await asyncio.gather(*(e.areset(options={"task_id": "add-2-3"}) for e in envs))
    assert all(obs["text"].startswith("Compute 2 + 3") for obs, _ in firsts)
    results = await asyncio.gather(*(e.astep(str(i + 4)) for i, e in enumerate(envs)))
    assert [r[1] for r in results] == [0.0, 1.0, 0.0, 0.0]
    assert len({e.session_id for e in envs}) == 4
    await asyncio.gather(*(e.aclose() for e in envs))


def test_engine_runs_remote_env_unchanged(http_url):
    requests = [EpisodeRequest(task_id=t) for t in ("add-2-3", "add-8-4", "add-0-0")]
    with_remote = Engine(f"remote:{http_url}/arith/add-v0", FakePolicy(_adder), num_envs=2)
    remote = with_remote.run(requests)
    with_remote.close()
    with_local = Engine("arith/add-v0", FakePolicy(_adder), num_envs=2)
    local = with_local.run(requests)
    with_local.close()
    assert [t.reward for t in remote] == [t.reward for t in local] == [1.0, 1.0, 1.0]
    assert [t.messages[1:] for t in remote] == [t.messages[1:] for t in local]


def test_bad_url_and_dead_server_fail_fast():
    with pytest.raises(EnvError, match="http://host:port"):
        RemoteEnv("ftp://x")
    start = time.monotonic()
    with pytest.raises(RemoteEnvError, match="cannot reach"):
        make(f"remote:http://127.0.0.1:{free_port()}/arith", connect_timeout_s=2)
    assert time.monotonic() - start < 5


def test_server_restart_aborts_the_episode_and_the_next_reset_reconnects():
    from agentgym.serve import create_app

    server = ThreadServer(create_app("sql"))
    server.start()
    env = make(f"remote:{server.url}", timeout_s=20)
    env.reset(seed=0)
    server.stop()
    start = time.monotonic()
    with pytest.raises(RemoteEnvError, match="episode aborted"):
        env.step(SELECT_1)
    assert time.monotonic() - start < 5
    with pytest.raises(RemoteEnvError, match="cannot connect"):
        env.reset(seed=0)  # still down: a clear error, no hang
    server = ThreadServer(create_app("sql"), port=server.port)
    server.start()
    try:
        obs, _ = env.reset(seed=0)
        assert "Database:" in obs["text"]
        assert env.step(SELECT_1)[0]["text"].startswith("1")
        env.close()
    finally:
        server.stop()


def test_engine_marks_a_crashed_server_as_aborted():
    """The server process dies mid-episode (SIGKILL): the episode is aborted with the reason."""
    cfg = RolloutConfig(max_turns=4, env_timeout_s=10)
    holder = {}

    def kill_then_act(messages, episode):
        if episode.turn == 1:
            holder["proc"].kill()
            holder["proc"].wait(10)
        return SELECT_1

    with server_process("sql", "--http") as (url, proc):
        holder["proc"] = proc
        engine = Engine(f"remote:{url}", FakePolicy(kill_then_act), config=cfg, num_envs=1)
        start = time.monotonic()
        (traj,) = engine.run([EpisodeRequest(seed=0)])
        engine.close()
    assert traj.aborted and "RemoteEnvError" in traj.reason and "lost" in traj.reason
    assert len(traj.messages) > 2  # the first turn was played before the crash
    assert time.monotonic() - start < 30


def test_a_wrong_request_is_an_env_error_and_the_session_survives(http_url):
    env = make(f"remote:{http_url}")
    with pytest.raises(EnvError, match="no task 'nope'") as info:
        env.reset(options={"task_id": "nope"})
    assert not isinstance(info.value, RemoteEnvError)
    obs, _ = env.reset(options={"task_id": "add-2-3"})
    assert obs["text"].startswith("Compute 2 + 3")
    env.close()


def test_split_spec_and_eval_of_a_remote_env(http_url, tmp_path):
    from agentgym import spec
    from agentgym.rollout.evaluate import EvalConfig, run_eval

    url = f"remote:{http_url}/arith"
    assert spec(url).max_turns == 1 and spec(url).id == url
    test_env = make(url, split="test")
    assert test_env.task_set.ids() == make("arith", split="test").unwrapped.task_set.ids()
    test_env.close()
    with pytest.raises(RemoteEnvError, match="invalid split"):
        make(url, split="../etc")
    with pytest.raises(RemoteEnvError, match="no-such-split|split"):
        make(url, split="no-such-split")
    policy = FakePolicy(_adder)
    results = run_eval(EvalConfig(url, policy="fake", n=4, out=str(tmp_path / "eval")),
                       policy=policy)
    assert results["metrics"]["success_rate"] == 1.0 or results["metrics"]["mean_reward"] == 1.0


def test_scripted_policy_plays_a_remote_env_through_the_servers_expert(http_url, tmp_path):
    """docs/serve.md: `agentgym eval remote:... --policy scripted` works (it aborted every episode:
    "this env offers no expert")."""
    from agentgym.rollout.evaluate import EvalConfig, run_eval

    url = f"remote:{http_url}/sql"
    results = run_eval(EvalConfig(url, policy="scripted", n=3, out=str(tmp_path / "eval")))
    metrics = results["metrics"]
    assert metrics.get("aborted", 0) == 0, metrics
    assert metrics["success_rate"] == 1.0


def test_a_server_without_the_expert_aborts_scripted_episodes_with_its_reason(tmp_path):
    from agentgym.rollout.evaluate import EvalConfig, run_eval
    from agentgym.serve import create_app

    server = ThreadServer(create_app(["arith"], offer_expert=False))
    server.start()
    try:
        env = make(f"remote:{server.url}")
        env.reset(seed=1)
        with pytest.raises(RemoteEnvError, match="403.*expert"):
            env.unwrapped.expert_actions(env.unwrapped.task)
        env.close()
        results = run_eval(EvalConfig(f"remote:{server.url}", policy="scripted", n=2,
                                      out=str(tmp_path / "eval")))
        assert results["metrics"]["aborted"] == 2, results["metrics"]
        assert "expert" in str(results["metrics"]["abort_reasons"])
    finally:
        server.stop()


def test_the_served_split_is_what_tasks_reports():
    from agentgym.serve import create_app

    server = ThreadServer(create_app(["arith"], env_kwargs={"split": "test"}))
    server.start()
    try:
        import httpx

        tasks = httpx.get(server.url + "/tasks").json()
        assert tasks["split"] == "test"
        assert tasks["task_ids"] == make("arith", split="test").unwrapped.task_set.ids()
        env = make(f"remote:{server.url}")
        assert env.unwrapped.split == "test"
        env.close()
    finally:
        server.stop()


def test_a_remote_turn_limit_is_the_servers_session_limit(http_url):
    """make("remote:...", max_turns=N) asks the server's make() for N: one place enforces it."""
    env = make(f"remote:{http_url}/sql", max_turns=2)
    assert isinstance(env, RemoteEnv) and env.max_turns == 2  # no client-side TurnLimit
    env.reset(seed=0)
    assert not env.step(SELECT_1)[3]
    assert env.step(SELECT_1)[3]  # truncated by the server at 2
    env.close()
