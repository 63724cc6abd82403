"""Token exactness through the gateway: the ids trained on are the ids the HF policy sampled."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentgym.gateway import GatewayServer

from .conftest import ADD_TOOL, FINAL

openai = pytest.importorskip("openai")


def _spy(server: GatewayServer) -> list[tuple[list[int], Any]]:
    """Record every (prompt ids, generation) the policy sees."""
    policy = server.gateway.policy
    seen: list[tuple[list[int], Any]] = []
    real = policy.agenerate

    async def agenerate(messages: Any, **kw: Any) -> Any:
        gen = await real(messages, **kw)
        seen.append((list(kw["prompt_token_ids"]), gen))
        return gen

    policy.agenerate = agenerate  # type: ignore[method-assign]
    return seen


def _tool_episode(server: GatewayServer, episode: str) -> list[Any]:
    """A plain OpenAI-client agent: ask, run the tool the model calls, answer."""
    client = openai.OpenAI(base_url=server.base_url(episode), api_key="unused", max_retries=0)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a calculator."},
        {"role": "user", "content": "What is 2 + 3?"}]
    replies = []
    for _ in range(3):
        out = client.chat.completions.create(model="tiny", messages=messages, tools=[ADD_TOOL])
        msg = out.choices[0].message
        replies.append(out)
        messages.append(msg.model_dump(exclude_none=True))
        if not msg.tool_calls:
            break
        for call in msg.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": str(args["a"] + args["b"])})
    return replies


def test_multi_turn_tool_episode_is_token_exact(gateway_server: GatewayServer) -> None:
    seen = _spy(gateway_server)
    replies = _tool_episode(gateway_server, "ep-exact")
    assert replies[0].choices[0].finish_reason == "tool_calls"
    assert replies[0].choices[0].message.tool_calls[0].function.name == "add"
    assert replies[-1].choices[0].message.content == FINAL

    [traj] = gateway_server.gateway.collect("ep-exact")
    assert len(seen) == len(traj.turn_spans) == 2
    for (prompt, gen), (a, b) in zip(seen, traj.turn_spans, strict=True):
        assert traj.token_ids[:a] == prompt  # the policy was conditioned on exactly these ids
        assert traj.token_ids[a:b] == gen.token_ids  # and these are the ids it sampled
        assert traj.logprobs[a:b] == gen.logprobs
        assert traj.versions[a:b] == gen.token_versions()
        assert traj.loss_mask[a:b] == [1] * (b - a)
    assert sum(traj.loss_mask) == sum(b - a for a, b in traj.turn_spans)
    # the sampled tool-call block is trained as sampled, though the agent never saw it as text
    tok = gateway_server.gateway.format.tokenizer
    assert "<tool_call>" in tok.decode(traj.generated_ids[0])
    assert not traj.info["gateway"]["mismatches"]


def test_edited_history_is_reported_and_not_trained_on(gateway_server: GatewayServer) -> None:
    client = openai.OpenAI(base_url=gateway_server.base_url("ep-edit"), api_key="k",
                           max_retries=0)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is 2 + 3?"}]
    first = client.chat.completions.create(model="tiny", messages=messages, tools=[ADD_TOOL])
    msg = first.choices[0].message.model_dump(exclude_none=True)
    msg["tool_calls"][0]["function"]["arguments"] = json.dumps({"a": 20, "b": 30})  # the edit
    messages += [msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"],
                       "content": "50"}]
    raw = client.chat.completions.with_raw_response.create(
        model="tiny", messages=messages, tools=[ADD_TOOL])
    assert raw.headers["x-agentgym-mismatch"].startswith("edited: assistant message 1")
    assert raw.headers["x-agentgym-branch"] == "1"

    first_branch, second = gateway_server.gateway.collect("ep-edit")
    assert len(first_branch.turn_spans) == 1  # the sampled branch is left as it was
    (a, b), = second.turn_spans
    edited = second.token_ids[:a]
    tok = gateway_server.gateway.format.tokenizer
    assert '"a": 20' in tok.decode(edited)  # the edit is context only:
    assert sum(second.loss_mask) == b - a == len(second.generated_ids[0])  # mask 1 on new turn
    [report] = second.info["gateway"]["mismatches"]
    assert report["kind"] == "edited" and report["message_index"] == 1
