"""History compression (WebAgent-R1's placeholder for earlier observations) in the engine."""

from __future__ import annotations

from typing import Any

import agentgym
from agentgym.policies import SamplingParams
from agentgym.policies.base import Generation
from agentgym.policies.fake import FakePolicy
from agentgym.rollout import ChatFormat, Engine, EpisodeRequest, RolloutConfig
from agentgym.rollout.history import REPLACE_CONTEXT, HistoryCompression, observations_to_compress

from .fake_envs import CounterEnv, counter_tasks

HISTORY = HistoryCompression(placeholder="** Simplified html **")


def test_which_observations_are_compressed() -> None:
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "task + obs 0"},
            {"role": "assistant", "content": "a"}, {"role": "user", "content": "obs 1"},
            {"role": "assistant", "content": "b"}, {"role": "tool", "content": "obs 2"}]
    assert observations_to_compress(msgs, HISTORY) == [3, 5]
    assert observations_to_compress(msgs, HistoryCompression(keep_first=False)) == [1, 3, 5]
    assert observations_to_compress(msgs, HistoryCompression(keep_last=2)) == [3]
    msgs[3]["content"] = HISTORY.placeholder
    assert observations_to_compress(msgs, HISTORY) == [5]
    assert HistoryCompression(keep_lines=1).compress("URL: x\ntree") == ("URL: x\n** Simplified "
                                                                         "html **")


class TextPolicy(FakePolicy):
    """A policy without a tokenizer (an HTTP server, say): text only."""

    async def agenerate(self, messages: list[dict[str, Any]], **kw: Any) -> Generation:
        self.calls.append({"messages": [dict(m) for m in messages]})
        return Generation(text=self._text(messages, kw.get("episode")))


def run(counter_env: str, history: HistoryCompression | None, tokens: bool) -> tuple:
    responses = ("step", "step", "step", "step", "done")  # t4 lasts 5 turns
    policy = FakePolicy(responses) if tokens else TextPolicy(responses)
    if not tokens:
        policy.tokenizer = None  # type: ignore[assignment]
    config = RolloutConfig(max_turns=6, history=history,
                           sampling=SamplingParams(max_tokens=16, temperature=1.0))
    engine = Engine(counter_env, policy, num_envs=1, config=config)
    [t] = engine.run([EpisodeRequest(task_id="t4")])
    engine.close()
    return t, policy


def test_text_mode_keeps_only_the_latest_observation(counter_env: str) -> None:
    t, policy = run(counter_env, HISTORY, tokens=False)
    assert t.terminated and t.reward == 1.0
    observations = [m["content"] for m in t.messages if m["role"] != "assistant"][1:]
    assert observations[0] == "task t4"  # the first observation states the task
    assert observations[1:-1] == [HISTORY.placeholder] * (len(observations) - 2)
    assert observations[-1].startswith("turn ")
    last_prompt = policy.calls[-1]["messages"]
    assert sum(m["content"] == HISTORY.placeholder for m in last_prompt) == 3


def test_exact_tokens_are_the_compressed_conversation(counter_env: str) -> None:
    t, policy = run(counter_env, HistoryCompression(placeholder="[obs]"), tokens=True)
    full, _ = run(counter_env, None, tokens=True)
    t.check()
    assert t.terminated and len(t.token_ids) < len(full.token_ids)
    chat = ChatFormat(policy.tokenizer)
    rebuilt = list(t.prompt_ids)
    for turn, generated in enumerate(t.generated_ids):
        rebuilt += generated
        if turn < len(t.generated_ids) - 1:
            rebuilt += chat.observation_ids(t.messages[3 + 2 * turn], generated)
    assert rebuilt == t.token_ids
    assert policy.calls[-1]["prompt_token_ids"] == t.token_ids[: t.turn_spans[-1][0]]
    assert sum(t.loss_mask) == sum(full.loss_mask)
    assert [m["content"] for m in t.messages].count("[obs]") == 3


class ReplacingCounterEnv(CounterEnv):
    """A counter env whose every observation supersedes the earlier ones (MemSearcher-style)."""

    def _step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = super()._step(action)
        return obs, reward, terminated, truncated, {**info, "context": "replace"}


def test_env_asking_to_replace_the_context_is_honoured_without_a_history_option() -> None:
    agentgym.register("testroll/replacing-v0", ReplacingCounterEnv, tasks=counter_tasks)
    for tokens in (False, True):
        t, policy = run("testroll/replacing-v0", None, tokens=tokens)
        t.check()
        assert t.terminated and t.reward == 1.0
        observations = [m["content"] for m in t.messages if m["role"] != "assistant"][1:]
        superseded = REPLACE_CONTEXT.placeholder
        assert observations[0] == "task t4"  # the first observation states the task
        assert observations[1:-1] == [superseded] * (len(observations) - 2)
        assert observations[-1].startswith("turn ") and superseded not in observations[-1]
        assert sum(m["content"] == superseded for m in policy.calls[-1]["messages"]) == 3
        if tokens:
            assert policy.calls[-1]["prompt_token_ids"] == t.token_ids[: t.turn_spans[-1][0]]
