"""Sync and async twins are derived from whichever style an env implements."""

import asyncio

import pytest
from sample_envs import Counter

from agentgym import AgentEnv, ResetNeeded, make_observation
from agentgym.testing import check_env


class AsyncCounter(AgentEnv):
    """An async-native env (like a Playwright page): only _areset/_astep."""

    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    async def _areset(self, options):
        await asyncio.sleep(0)
        self.n = 0
        return make_observation("async start"), {"seed_task": int(self.np_random.integers(100))}

    async def _astep(self, action):
        await asyncio.sleep(0)
        self.n += 1
        return make_observation(f"step {self.n}"), 0.5, self.n >= 2, False, {}


def test_async_native_env_has_sync_api():
    env = AsyncCounter()
    obs, info = env.reset(seed=3)
    assert obs["text"] == "async start"
    assert env.step("x")[0]["text"] == "step 1"
    assert env.step("x")[2] is True
    assert env.render() == "step 2"
    env.close()


def test_sync_env_has_async_api():
    async def run():
        env = Counter(goal=2)
        obs, _ = await env.areset(seed=1)
        r1 = await env.astep("a")
        r2 = await env.astep("b")
        await env.aclose()
        return obs, r1, r2

    obs, r1, r2 = asyncio.run(run())
    assert obs["text"] == "start" and r1[0]["text"] == "1" and r2[2] is True


def test_async_env_used_from_async_code():
    async def run():
        env = AsyncCounter()
        a, _ = await env.areset(seed=0)
        b = await env.astep("x")
        return a["text"], b[1]

    assert asyncio.run(run()) == ("async start", 0.5)


def test_same_seed_same_task_in_async_env():
    env = AsyncCounter()
    assert env.reset(seed=5)[1] == env.reset(seed=5)[1]


def test_check_env_rejects_a_crashing_env():
    class Fragile(Counter):
        def _step(self, action):
            if not isinstance(action, str):
                raise TypeError("boom")
            return super()._step(action)

    with pytest.raises(Exception, match="step raised TypeError on malformed action"):
        check_env(Fragile(goal=1000), n_malformed=50)


def test_taskenv_step_before_reset_raises(guess_env):
    with pytest.raises(ResetNeeded):
        guess_env.step("x")


@pytest.fixture
def guess_env():
    from agentgym import Task, TaskSet, TaskToolEnv

    class Echo(TaskToolEnv):
        def __init__(self):
            super().__init__(TaskSet([Task("t", "train", "say hi")]), "train")

        def make_tools(self):
            return [self.say]

        def start(self, task):
            return task.prompt

        def say(self, text: str) -> str:
            """Say something."""
            if text == "crash":
                raise RuntimeError("tool bug")
            if text == "hi":
                self.finish(1.0)
            return text

    return Echo()


def test_taskenv_errors_become_observations(guess_env):
    guess_env.reset(seed=0)
    obs, r, term, trunc, info = guess_env.step("no call here")
    assert "no tool call found" in obs["text"] and not term
    obs, *_ , info = guess_env.step('<tool_call>{"name": "say", "arguments": {"text": "crash"}}')
    assert "tool 'say' failed: RuntimeError: tool bug" in obs["text"]
    assert info["tool_results"][0].is_error
    obs, *_ = guess_env.step('<tool_call>{"name": "say", "arguments": {"txt": 1}}</tool_call>')
    assert "field 'text'" in obs["text"]
    obs, r, term, trunc, info = guess_env.step(
        '<tool_call>{"name": "say", "arguments": {"text": "hi"}}</tool_call>'
    )
    assert (r, term, info["success"]) == (1.0, True, True)
