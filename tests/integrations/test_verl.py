"""The verl agent loop adapter, driven by a fake verl server manager (verl is not installed)."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import pytest

from agentgym import MissingExtra, make
from agentgym.integrations.verl import AgentgymLoop, verl_agent_loop_class, verl_rows
from agentgym.rollout import env_expert_actions

if importlib.util.find_spec("trl") is None:  # the tiny tokenizer uses the template TRL ships
    pytest.skip("trl is not installed", allow_module_level=True)


class FakeServerManager:
    """verl's ``AsyncLLMServerManager.generate`` answering with scripted texts."""

    def __init__(self, tokenizer, texts):
        self.tokenizer, self.texts, self.prompts = tokenizer, list(texts), []

    async def generate(self, request_id, *, prompt_ids, sampling_params, image_data=None):
        self.prompts.append(list(prompt_ids))
        ids = self.tokenizer.encode(self.texts.pop(0), add_special_tokens=False)
        return SimpleNamespace(token_ids=ids, log_probs=[-0.25] * len(ids))


@pytest.fixture(scope="module")
def tokenizer():
    from agentgym.integrations.tiny import tiny_tokenizer

    return tiny_tokenizer()


async def test_loop_plays_a_sql_task_with_masks_and_reward(tokenizer):
    env = make("sql")
    task_id = env.unwrapped.task_set.ids()[4]
    env.reset(options={"task_id": task_id})
    texts = [call.to_hermes() for call in env_expert_actions(env)]
    server = FakeServerManager(tokenizer, texts)
    loop = AgentgymLoop(server, tokenizer, max_turns=5, response_length=100_000)
    result = await loop.run(env, {"temperature": 1.0}, task_id=task_id)
    env.close()
    assert result.reward_score == 1.0 and result.extra_fields["end_reason"] == "terminated"
    assert result.extra_fields["model_turns"] == 2
    # generated tokens are exactly the masked-in ones, in order
    pairs = list(zip(result.response_ids, result.response_mask, strict=True))
    generated = [t for t, m in pairs if m]
    assert tokenizer.decode(generated) == "".join(texts)
    env_tokens = [t for t, m in pairs if not m]
    assert "<tool_response>" in tokenizer.decode(env_tokens)
    assert result.response_logprobs.count(-0.25) == len(generated)
    # the second generation saw the first answer and the env's reply
    assert server.prompts[1][: len(result.prompt_ids)] == result.prompt_ids
    assert "Database:" in tokenizer.decode(result.prompt_ids)


async def test_loop_stops_at_the_response_length(tokenizer):
    env = make("sql")
    server = FakeServerManager(tokenizer, ["SELECT nothing, just talk " * 8] * 5)
    loop = AgentgymLoop(server, tokenizer, max_turns=5, response_length=150)
    result = await loop.run(env, {}, seed=0)
    env.close()
    # the episode driver truncates before an observation that would cross the cap
    assert 100 < len(result.response_ids) == len(result.response_mask) <= 150
    assert result.reward_score == 0.0 and result.extra_fields["end_reason"] == "response_length"
    assert not result.extra_fields["aborted"]


def test_rows_and_missing_verl():
    rows = verl_rows("arith", split="test")
    assert len(rows) == 30 and {r["agent_name"] for r in rows} == {"agentgym"}
    assert rows[0]["task_id"] in make("arith", split="test").unwrapped.task_set.ids()
    if importlib.util.find_spec("verl") is None:
        with pytest.raises(MissingExtra, match="pip install verl"):
            verl_agent_loop_class()


async def test_an_infrastructure_failure_aborts_the_sample_rather_than_scoring_it(tokenizer):
    from agentgym.errors import InfrastructureError

    env = make("sql")
    task_id = env.unwrapped.task_set.ids()[4]
    env.reset(options={"task_id": task_id})
    texts = [call.to_hermes() for call in env_expert_actions(env)]

    async def dead_server(action):
        raise InfrastructureError("the database server is gone")

    env.astep = dead_server  # the env's backend dies at the first step
    loop = AgentgymLoop(FakeServerManager(tokenizer, texts), tokenizer, max_turns=5)
    result = await loop.run(env, {}, task_id=task_id)
    env.close()
    assert result.extra_fields["aborted"] and result.extra_fields["end_reason"] == "aborted"
    assert "the database server is gone" in result.extra_fields["reason"]
    assert result.reward_score == 0.0 and sum(result.response_mask) > 0
