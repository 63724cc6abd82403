"""The gateway's HTTP face: OpenAI ``/v1/chat/completions`` and ``/v1/models``, per episode.

Routes (every one behind the serve package's :class:`~agentgym.serve.guard.RequestGuard`)::

    POST /episodes/{id}/v1/chat/completions   the episode in the path (OPENAI_BASE_URL)
    GET  /episodes/{id}/v1/models
    POST /v1/chat/completions                 the episode in X-Agentgym-Episode, or the API key
    GET  /v1/models                           (the key only when the gateway has no token)
    POST /episodes                            {"episode": id?, "task_id": id?} -> its keys
    POST /episodes/{id}/reward                {"reward": 1.0, "done": true} (its reward key)
    GET  /episodes/{id}                       the episode's trajectories and mismatches

Bearers (see :mod:`agentgym.gateway.credentials`): the run token (the guard's ``token``), a
client token, an episode's agent key (chat in that episode only) or its reward key (that
episode's reward only). No other credential posts a reward.

Errors are OpenAI-shaped: ``{"error": {"message", "type", "code"}}`` with the status.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pydantic
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse

from ..serve.guard import GuardSettings, RequestGuard
from .credentials import RUN, Credentials, Principal
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


class OpenBody(pydantic.BaseModel):
    """``POST /episodes``: the id to open (default: a fresh one) and its task."""

    episode: str | None = None
    task_id: str | None = pydantic.Field(default=None, max_length=256)


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


def _bearer(authorization: str | None) -> str:
    """The key of an ``Authorization: Bearer <key>`` header ("" for any other header)."""
    scheme, _, key = (authorization or "").strip().partition(" ")
    return key.strip() if scheme.lower() == "bearer" else ""


@dataclasses.dataclass(frozen=True)
class _KeyedGuardSettings(GuardSettings):
    """The guard's settings, taking the gateway's issued keys as bearers besides the run
    token, so an unknown bearer is refused before the body is read; which route a key may
    call is checked per route."""

    credentials: Credentials | None = None

    def token_ok(self, authorization: str | None) -> bool:
        """Whether the header carries the run token or a live issued key."""
        return super().token_ok(authorization) or (
            self.credentials is not None
            and self.credentials.who(_bearer(authorization)) is not None)


def create_app(gateway: Gateway, guard: GuardSettings | None = None) -> Any:
    """The ASGI app of ``gateway`` behind a :class:`RequestGuard` with ``guard`` settings.

    The guard checks Host, Origin, body and that the bearer is the run token (``guard.token``)
    or a live issued key; what each credential may do is checked per route here."""
    settings = guard or GuardSettings()
    run_token = settings.token
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

    def bearer(request: Request) -> str:
        return _bearer(request.headers.get("authorization"))

    def principal(request: Request) -> Principal:
        if run_token is not None and settings.token_ok(request.headers.get("authorization")):
            return RUN
        found = gateway.credentials.who(bearer(request))
        if found is not None:
            return found
        if run_token is None:
            return RUN  # a gateway without a token trusts every caller (tests, in-process)
        raise GatewayError("missing, wrong or revoked bearer token (Authorization: Bearer "
                           "<token>)", 401, "unauthorized")

    def episode_of(request: Request, who: Principal) -> str:
        given = request.headers.get(EPISODE_HEADER)
        if given:
            return given
        if who.kind == "agent" and who.episode:
            return who.episode
        key = bearer(request)
        if run_token is None and key:
            return key
        raise GatewayError("no episode: call /episodes/<id>/v1, send X-Agentgym-Episode, or "
                           "use the episode's agent key", 400, "episode")

    def forbidden(what: str) -> GatewayError:
        return GatewayError(f"this credential may not {what}", 403, "forbidden")

    async def chat(episode_id: str, body: ChatBody, who: Principal) -> Any:
        open_ep = gateway.episodes.get(episode_id)
        if not who.may_chat(episode_id, open_ep.client if open_ep is not None else None):
            raise forbidden(f"call the model in episode {episode_id!r}")
        if body.n != 1:
            raise GatewayError("only n=1 is served (start one agent per sample)")
        stop = (body.stop,) if isinstance(body.stop, str) else tuple(body.stop or ())
        result = await gateway.chat(
            episode_id, body.messages, body.tools,
            max_tokens=body.max_completion_tokens or body.max_tokens,
            temperature=body.temperature, top_p=body.top_p, seed=body.seed, stop=stop,
            client=who.opens_as())
        model = body.model or gateway.model_name
        if body.stream:
            return StreamingResponse(_chunks(result, model), media_type="text/event-stream",
                                     headers=_headers(result))
        return JSONResponse(_completion(result, model), headers=_headers(result))

    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": gateway.model_name, "object": "model",
                                            "owned_by": "agentgym"}]}

    @api.post("/episodes/{episode_id}/v1/chat/completions")
    async def episode_chat(request: Request, episode_id: str, body: ChatBody) -> Any:
        return await chat(episode_id, body, principal(request))

    @api.post("/v1/chat/completions")
    async def keyed_chat(request: Request, body: ChatBody) -> Any:
        who = principal(request)
        return await chat(episode_of(request, who), body, who)

    @api.get("/episodes/{episode_id}/v1/models")
    async def episode_models(request: Request, episode_id: str) -> dict[str, Any]:
        principal(request)
        return models()

    @api.get("/v1/models")
    async def all_models(request: Request) -> dict[str, Any]:
        principal(request)
        return models()

    @api.post("/episodes")
    async def open_episode(request: Request, body: OpenBody) -> dict[str, Any]:
        who = principal(request)
        client = who.opens_as()
        if client is None:
            raise forbidden("open episodes")
        keys = gateway.open_episode(body.episode or f"ep-{secrets.token_hex(8)}",
                                    task_id=body.task_id, client=client)
        return {"episode": keys.episode, "agent_key": keys.agent, "reward_key": keys.reward}

    @api.post("/episodes/{episode_id}/reward")
    async def reward(request: Request, episode_id: str, body: RewardBody) -> dict[str, Any]:
        who = principal(request)
        gateway.episode(episode_id, create=False)
        if not who.may_reward(episode_id):
            raise forbidden(f"set the reward of episode {episode_id!r} (only its reward key, "
                            "from POST /episodes, does)")
        gateway.set_reward(episode_id, body.reward, done=body.done)
        return {"episode": episode_id, "reward": body.reward}

    @api.get("/episodes/{episode_id}")
    async def show(request: Request, episode_id: str) -> dict[str, Any]:
        who = principal(request)
        ep = gateway.episode(episode_id, create=False)
        if not who.may_read(episode_id, ep.client):
            raise forbidden(f"read episode {episode_id!r}")
        return {"episode": episode_id, "reward": ep.reward, "done": ep.done,
                "mismatches": [vars(m) for m in ep.mismatches],
                "trajectories": [t.to_dict() for t in ep.trajectories()]}

    keyed = _KeyedGuardSettings(**{f.name: getattr(settings, f.name)
                                   for f in dataclasses.fields(GuardSettings)},
                                credentials=gateway.credentials)
    return RequestGuard(api, keyed)


__all__ = ["EPISODE_HEADER", "ChatBody", "OpenBody", "RewardBody", "create_app"]
