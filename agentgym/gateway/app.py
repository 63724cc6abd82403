"""The gateway's HTTP face: OpenAI ``/v1/chat/completions`` and ``/v1/models``, per episode.

Routes (every one behind the serve package's :class:`~agentgym.serve.guard.RequestGuard`)::

    POST /episodes/{id}/v1/chat/completions   the episode in the path (OPENAI_BASE_URL)
    GET  /episodes/{id}/v1/models
    POST /v1/chat/completions                 the episode in X-Agentgym-Episode, or the API key
    GET  /v1/models                           (the key only when the gateway has no token)
    POST /episodes/{id}/reward                {"reward": 1.0, "done": true}
    GET  /episodes/{id}                       the episode's trajectories and mismatches

Errors are OpenAI-shaped: ``{"error": {"message", "type", "code"}}`` with the status.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pydantic
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse

from ..serve.guard import GuardSettings, RequestGuard
from .episodes import GatewayError
from .service import ChatResult, Gateway

EPISODE_HEADER = "x-agentgym-episode"


class ChatBody(pydantic.BaseModel):
    """The chat-completions fields the gateway reads (others are accepted and ignored)."""

    model_config = pydantic.ConfigDict(extra="allow")
    messages: list[dict[str, Any]] = pydantic.Field(max_length=100_000)
    model: str | None = None
    tools: list[dict[str, Any]] | None = None
    stream: bool = False
    max_tokens: int | None = pydantic.Field(default=None, ge=1)
    max_completion_tokens: int | None = pydantic.Field(default=None, ge=1)
    temperature: float = pydantic.Field(default=1.0, ge=0.0, le=10.0)
    top_p: float = pydantic.Field(default=1.0, gt=0.0, le=1.0)
    n: int = 1
    seed: int | None = None
    stop: str | list[str] | None = None


class RewardBody(pydantic.BaseModel):
    """``POST /episodes/{id}/reward``."""

    reward: float = pydantic.Field(allow_inf_nan=False)
    done: bool = True


def _error(status: int, message: str, code: str) -> JSONResponse:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse({"error": {"message": message, "type": kind, "code": code}}, status)


def _completion(result: ChatResult, model: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion",
        "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": result.reply.message(),
                     "finish_reason": result.finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": result.prompt_tokens,
                  "completion_tokens": result.completion_tokens,
                  "total_tokens": result.prompt_tokens + result.completion_tokens},
    }


async def _chunks(result: ChatResult, model: str) -> AsyncIterator[bytes]:
    """The reply as server-sent chat-completion chunks (it is generated before the first)."""
    base = {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(body)}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    if result.reply.content:
        yield chunk({"content": result.reply.content})
    for i, call in enumerate(result.reply.tool_calls):
        yield chunk({"tool_calls": [{"index": i, **call}]})
    yield chunk({}, result.finish_reason)
    yield b"data: [DONE]\n\n"


def _headers(result: ChatResult) -> dict[str, str]:
    out = {"x-agentgym-branch": str(result.branch),
           "x-agentgym-policy-version": str(result.policy_version)}
    if result.mismatch is not None:
        out["x-agentgym-mismatch"] = f"{result.mismatch.kind}: {result.mismatch.detail}"
    return out


def create_app(gateway: Gateway, guard: GuardSettings | None = None) -> Any:
    """The ASGI app of ``gateway`` behind a :class:`RequestGuard` with ``guard`` settings."""
    settings = guard or GuardSettings()
    api = FastAPI(title="agentgym gateway", docs_url=None, redoc_url=None, openapi_url=None)

    @api.exception_handler(GatewayError)
    async def _gateway_error(_: Request, e: GatewayError) -> JSONResponse:
        return _error(e.status, str(e), e.code)

    @api.exception_handler(RequestValidationError)
    async def _invalid(_: Request, e: RequestValidationError) -> JSONResponse:
        first = e.errors()[0] if e.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return _error(400, f"invalid request at {where}: {first.get('msg', 'bad value')}",
                      "invalid_request")

    def episode_of(request: Request) -> str:
        given = request.headers.get(EPISODE_HEADER)
        if given:
            return given
        scheme, _, key = request.headers.get("authorization", "").partition(" ")
        if settings.token is None and scheme.lower() == "bearer" and key.strip():
            return key.strip()
        raise GatewayError("no episode: call /episodes/<id>/v1, send X-Agentgym-Episode, or "
                           "use the episode id as the API key", 400, "episode")

    async def chat(episode_id: str, body: ChatBody) -> Any:
        if body.n != 1:
            raise GatewayError("only n=1 is served (start one agent per sample)")
        stop = (body.stop,) if isinstance(body.stop, str) else tuple(body.stop or ())
        result = await gateway.chat(
            episode_id, body.messages, body.tools,
            max_tokens=body.max_completion_tokens or body.max_tokens,
            temperature=body.temperature, top_p=body.top_p, seed=body.seed, stop=stop)
        model = body.model or gateway.model_name
        if body.stream:
            return StreamingResponse(_chunks(result, model), media_type="text/event-stream",
                                     headers=_headers(result))
        return JSONResponse(_completion(result, model), headers=_headers(result))

    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": gateway.model_name, "object": "model",
                                            "owned_by": "agentgym"}]}

    @api.post("/episodes/{episode_id}/v1/chat/completions")
    async def episode_chat(episode_id: str, body: ChatBody) -> Any:
        return await chat(episode_id, body)

    @api.post("/v1/chat/completions")
    async def keyed_chat(request: Request, body: ChatBody) -> Any:
        return await chat(episode_of(request), body)

    @api.get("/episodes/{episode_id}/v1/models")
    async def episode_models(episode_id: str) -> dict[str, Any]:
        return models()

    @api.get("/v1/models")
    async def all_models() -> dict[str, Any]:
        return models()

    @api.post("/episodes/{episode_id}/reward")
    async def reward(episode_id: str, body: RewardBody) -> dict[str, Any]:
        gateway.set_reward(episode_id, body.reward, done=body.done)
        return {"episode": episode_id, "reward": body.reward}

    @api.get("/episodes/{episode_id}")
    async def show(episode_id: str) -> dict[str, Any]:
        ep = gateway.episode(episode_id, create=False)
        return {"episode": episode_id, "reward": ep.reward, "done": ep.done,
                "mismatches": [vars(m) for m in ep.mismatches],
                "trajectories": [t.to_dict() for t in ep.trajectories()]}

    return RequestGuard(api, settings)


__all__ = ["EPISODE_HEADER", "ChatBody", "RewardBody", "create_app"]
