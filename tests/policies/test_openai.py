"""The OpenAI-compatible policy against httpx.MockTransport: payload, parsing, retries."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from agentgym import PolicyError
from agentgym.policies import SamplingParams, load_policy
from agentgym.policies.openai_http import OpenAIPolicy, to_openai_messages

REPLY = {
    "choices": [{
        "message": {"role": "assistant", "content": "hi"},
        "finish_reason": "stop",
        "logprobs": {"content": [{"token": "token_id:5", "logprob": -0.25},
                                 {"token": "token_id:2", "logprob": -0.5}]},
    }]
}


def _policy(handler: Any, **kw: Any) -> OpenAIPolicy:
    return OpenAIPolicy("http://server/v1", model="m", transport=httpx.MockTransport(handler),
                        backoff_s=0.001, **kw)


async def test_request_body_and_parsed_reply() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/chat/completions"
        seen.append(json.loads(request.content))
        return httpx.Response(200, json=REPLY)

    policy = _policy(handler, return_token_ids=True)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    gen = await policy.agenerate([{"role": "user", "content": "q"}], tools=tools,
                                 sampling=SamplingParams(max_tokens=7, temperature=0.5, seed=3))
    await policy.aclose()
    body = seen[0]
    assert body["model"] == "m" and body["max_tokens"] == 7 and body["temperature"] == 0.5
    assert body["seed"] == 3 and body["logprobs"] is True and body["tools"] == tools
    assert body["return_tokens_as_token_ids"] is True
    assert gen.text == "hi" and gen.token_ids == [5, 2] and gen.logprobs == [-0.25, -0.5]


async def test_retries_5xx_and_connection_errors_then_succeeds() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            raise httpx.ConnectError("refused")
        if len(calls) == 2:
            return httpx.Response(503, text="busy")
        return httpx.Response(200, json=REPLY)

    policy = _policy(handler)
    gen = await policy.agenerate([{"role": "user", "content": "q"}], sampling=SamplingParams())
    await policy.aclose()
    assert len(calls) == 3 and gen.text == "hi"
    assert gen.token_ids == [5, 2]


async def test_client_errors_are_not_retried_and_retries_are_bounded() -> None:
    calls = []

    def bad_request(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(400, text="bad model")

    policy = _policy(bad_request)
    with pytest.raises(PolicyError, match="HTTP 400"):
        await policy.agenerate([{"role": "user", "content": "q"}], sampling=SamplingParams())
    assert len(calls) == 1
    policy = _policy(lambda r: httpx.Response(502), max_retries=2)
    with pytest.raises(PolicyError, match="after 3 attempts"):
        await policy.agenerate([{"role": "user", "content": "q"}], sampling=SamplingParams())


async def test_model_name_from_server() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": [{"id": "served"}]})
        assert json.loads(request.content)["model"] == "served"
        return httpx.Response(200, json=REPLY)

    policy = OpenAIPolicy("http://server/v1", transport=httpx.MockTransport(handler))
    await policy.agenerate([{"role": "user", "content": "q"}], sampling=SamplingParams())
    assert policy.model == "served"


def test_message_conversion() -> None:
    msgs = [
        {"role": "user", "content": "look", "images": [0]},
        {"role": "tool", "content": "result"},
        {"role": "tool", "content": "r2", "tool_call_id": "c1"},
    ]
    out = to_openai_messages(msgs, [b"png"])
    assert out[0]["content"][1]["image_url"]["url"] == "data:image/png;base64,cG5n"
    assert out[1]["role"] == "user"  # a text-protocol result has no call id to answer
    assert out[2] == {"role": "tool", "content": "r2", "tool_call_id": "c1"}


def test_selected_by_string() -> None:
    policy = load_policy("openai:http://host:8000/v1?model=qwen&timeout_s=5&send_tools=false")
    assert isinstance(policy, OpenAIPolicy)
    assert policy.base_url == "http://host:8000/v1" and policy.model == "qwen"
    assert policy.timeout_s == 5 and policy.send_tools is False
