"""The OpenAI surface: streaming, models, episode by header or key, rewards, reply parsing."""

from __future__ import annotations

import httpx
import pytest

from agentgym.gateway import GatewayServer
from agentgym.gateway.messages import Reply, same_reply, split_reply

from .conftest import ADD_TOOL

openai = pytest.importorskip("openai")
ASK = [{"role": "user", "content": "What is 2 + 3?"}]


def test_streaming_returns_the_same_tool_call(gateway_server: GatewayServer) -> None:
    client = openai.OpenAI(base_url=gateway_server.base_url("s1"), api_key="k", max_retries=0)
    chunks = list(client.chat.completions.create(model="tiny", messages=ASK, tools=[ADD_TOOL],
                                                 stream=True))
    calls = [c for ch in chunks for c in (ch.choices[0].delta.tool_calls or [])]
    assert calls[0].function.name == "add" and chunks[-1].choices[0].finish_reason == "tool_calls"
    [traj] = gateway_server.gateway.collect("s1")
    assert len(traj.turn_spans) == 1


def test_models_and_episode_from_header_or_api_key(gateway_server: GatewayServer) -> None:
    client = openai.OpenAI(base_url=f"{gateway_server.url}/v1", api_key="by-key", max_retries=0)
    assert [m.id for m in client.models.list().data] == ["tiny"]
    client.chat.completions.create(model="tiny", messages=ASK)
    client.chat.completions.create(model="tiny", messages=ASK,
                                   extra_headers={"X-Agentgym-Episode": "by-header"})
    assert set(gateway_server.gateway.episodes) == {"by-key", "by-header"}


def test_posted_reward_is_attached_to_every_branch(gateway_server: GatewayServer) -> None:
    keys = httpx.post(f"{gateway_server.url}/episodes", json={"episode": "r1"}).json()
    client = openai.OpenAI(base_url=gateway_server.base_url("r1"), api_key=keys["agent_key"],
                           max_retries=0)
    client.chat.completions.create(model="tiny", messages=ASK)
    client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "other"}])
    r = httpx.post(f"{gateway_server.url}/episodes/r1/reward", json={"reward": 0.5},
                   headers={"Authorization": f"Bearer {keys['reward_key']}"})
    assert r.status_code == 200
    shown = httpx.get(f"{gateway_server.url}/episodes/r1").json()
    assert [t["reward"] for t in shown["trajectories"]] == [0.5, 0.5]
    assert shown["mismatches"][0]["kind"] == "rewritten"


def test_reply_parsing_and_matching() -> None:
    hermes = split_reply('ok <tool_call>{"name": "add", "arguments": {"a": 1}}</tool_call>',
                         [ADD_TOOL])
    assert hermes.content == "ok" and hermes.tool_calls[0]["function"]["name"] == "add"
    compact = split_reply("add(7)\n", [ADD_TOOL])
    assert compact.tool_calls[0]["function"]["arguments"] == '{"a": "7"}'
    assert split_reply("add(7)", None).tool_calls == []  # no tools offered: plain text
    assert split_reply("mul(7)", [ADD_TOOL]).tool_calls == []  # not a tool of the request
    sent = hermes.message()
    assert same_reply({**sent, "content": None}, hermes)  # text dropped by a framework
    edited = {**sent, "tool_calls": [{**sent["tool_calls"][0], "function": {
        "name": "add", "arguments": '{"a": 2}'}}]}
    assert not same_reply(edited, hermes)
    assert same_reply({"role": "assistant", "content": " hi \n"}, Reply("hi", [], "hi"))
