"""OpenAI-compatible chat-completions policy over ``httpx`` (vLLM, SGLang, llama.cpp servers).

Select it as ``openai:http://host:8000/v1?model=NAME``. Requests carry the env's tools (unless
``send_tools=false``), retry with exponential backoff and jitter on connection errors, timeouts,
429 and 5xx, and are limited to ``max_concurrency`` in flight. Log-probs are read from the
``logprobs.content`` field when the server returns it (llama.cpp needs ``--logits_all true``);
with ``return_token_ids=true`` a vLLM server returns ``token_id:N`` tokens, which become exact
generated ids. Without ids the turn is text-level: its log-probs are kept per turn in
:attr:`Trajectory.response_logprobs`, not per token.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import random
from typing import Any

import httpx

from ..errors import PolicyError
from .base import EpisodeContext, Generation, Policy, SamplingParams

logger = logging.getLogger(__name__)

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


def to_openai_messages(
    messages: list[dict[str, Any]], images: list[bytes] | None = None
) -> list[dict[str, Any]]:
    """Convert engine messages: images become data-URL parts, id-less tool messages user ones."""
    out = []
    for m in messages:
        msg: dict[str, Any] = {"role": m["role"], "content": m.get("content") or ""}
        if m.get("tool_calls"):
            msg["tool_calls"] = m["tool_calls"]
        if m["role"] == "tool":
            if m.get("tool_call_id"):
                msg["tool_call_id"] = m["tool_call_id"]
            else:
                msg["role"] = "user"  # text-protocol tool results: no call id to answer
        if m.get("images") and images is not None:
            parts: list[dict[str, Any]] = [{"type": "text", "text": msg["content"]}]
            for i in m["images"]:
                url = "data:image/png;base64," + base64.b64encode(images[i]).decode()
                parts.append({"type": "image_url", "image_url": {"url": url}})
            msg["content"] = parts
        out.append(msg)
    return out


def parse_choice(data: dict[str, Any]) -> tuple[str, Any, str, list[int], list[float] | None]:
    """``(text, tool_calls, finish_reason, token_ids, logprobs)`` of a chat-completions reply."""
    try:
        choice = data["choices"][0]
        message = choice.get("message") or {}
    except (KeyError, IndexError, TypeError) as e:
        raise PolicyError(f"malformed chat-completions response: {str(data)[:300]}") from e
    content = (choice.get("logprobs") or {}).get("content") or []
    logprobs = [float(c["logprob"]) for c in content] if content else None
    ids: list[int] = []
    for c in content:
        token = str(c.get("token", ""))
        if not token.startswith("token_id:"):
            ids = []
            break
        ids.append(int(token.split(":", 1)[1]))
    return (message.get("content") or "", message.get("tool_calls") or None,
            choice.get("finish_reason") or "stop", ids, logprobs)


def check_base_url(base_url: str) -> str:
    """``base_url`` without a trailing ``/``; a :class:`PolicyError` unless it is http(s)."""
    try:
        url = httpx.URL(base_url)
    except (httpx.InvalidURL, TypeError) as e:
        raise PolicyError(f"openai: {base_url!r} is not a URL ({e}); "
                          "expected openai:http://host:8000/v1") from e
    if url.scheme not in ("http", "https") or not url.host:
        raise PolicyError(f"openai: {base_url!r} is not an http(s) URL with a host; "
                          "expected openai:http://host:8000/v1")
    return base_url.rstrip("/")


def retryable(error: httpx.TransportError) -> bool:
    """Whether a transport error can succeed on retry (a timeout, a dropped connection).

    A refused connection is retried during a run (a server restarting); the check before the
    run (:meth:`OpenAIPolicy.acheck`) does not retry it. An unsupported protocol or a request
    httpx itself rejects never succeeds, so it is raised at once.
    """
    return isinstance(error, httpx.TimeoutException | httpx.NetworkError
                      | httpx.RemoteProtocolError)


class OpenAIPolicy(Policy):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_s: float = 0.5,
        max_concurrency: int = 64,
        send_tools: bool = True,
        return_token_ids: bool = False,
        top_logprobs: int = 1,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__()
        self.base_url = check_base_url(base_url)
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.timeout_s, self.max_retries, self.backoff_s = timeout_s, max_retries, backoff_s
        self.max_concurrency = max_concurrency
        self.send_tools, self.return_token_ids = send_tools, return_token_ids
        self.top_logprobs = top_logprobs
        self.transport = transport
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> OpenAIPolicy:
        """``openai:http://host:8000/v1?model=NAME&timeout_s=60``."""
        if not arg:
            raise PolicyError("openai needs a base URL: openai:http://host:8000/v1")
        return cls(arg, **options)

    def _client_for_loop(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            limits = httpx.Limits(max_connections=self.max_concurrency)
            self._client = httpx.AsyncClient(
                base_url=self.base_url, headers=headers, transport=self.transport, limits=limits,
                timeout=httpx.Timeout(self.timeout_s, connect=min(10.0, self.timeout_s)),
            )
            self._semaphore = asyncio.Semaphore(self.max_concurrency)
            self._loop = loop
        return self._client, self._semaphore  # type: ignore[return-value]

    async def _post(
        self, path: str, body: dict[str, Any] | None, *, retries: int | None = None
    ) -> dict[str, Any]:
        max_retries = self.max_retries if retries is None else retries
        client, semaphore = self._client_for_loop()
        try:
            await asyncio.wait_for(semaphore.acquire(), self.timeout_s * (self.max_retries + 1))
        except TimeoutError as e:
            raise PolicyError("timed out waiting for a free request slot") from e
        try:
            for attempt in range(max_retries + 1):
                try:
                    if body is None:
                        resp = await client.get(path)
                    else:
                        resp = await client.post(path, json=body)
                except httpx.TransportError as e:
                    error = f"{type(e).__name__}: {e}"
                    if not retryable(e):
                        raise PolicyError(f"{self.base_url}{path}: {error}") from e
                else:
                    if resp.status_code < 400:
                        return resp.json()  # type: ignore[no-any-return]
                    error = f"HTTP {resp.status_code}: {resp.text[:300]}"
                    if resp.status_code not in RETRY_STATUS:
                        raise PolicyError(f"{self.base_url}{path}: {error}")
                if attempt == max_retries:
                    raise PolicyError(
                        f"{self.base_url}{path} failed after {attempt + 1} attempts: {error}")
                delay = min(30.0, self.backoff_s * 2**attempt) * (1 + 0.25 * random.random())
                logger.warning("retrying %s in %.2fs (%s)", path, delay, error)
                await asyncio.sleep(delay)
        finally:
            semaphore.release()
        raise PolicyError("unreachable")  # pragma: no cover

    async def acheck(self) -> None:
        """One request to ``/models`` before a run: a dead server or a bad key fails here.

        Nothing is retried except overload answers (429, 5xx), so a refused connection is one
        error line instead of minutes of retries and a run of aborted episodes.
        """
        client, _ = self._client_for_loop()
        try:
            resp = await client.get("/models", timeout=min(10.0, self.timeout_s))
        except httpx.TransportError as e:
            raise PolicyError(f"cannot reach the policy server at {self.base_url}: "
                              f"{type(e).__name__}: {str(e) or 'no answer'}") from e
        if resp.status_code in (401, 403):
            raise PolicyError(f"the policy server at {self.base_url} refused the request "
                              f"(HTTP {resp.status_code}); check OPENAI_API_KEY or api_key=")
        if resp.status_code in RETRY_STATUS:
            await self._model_name()  # overloaded or loading: the ordinary retries apply
        elif resp.status_code < 400:
            if self.model is None:
                await self._model_name()
        elif self.model is None:
            raise PolicyError(f"{self.base_url}/models answered HTTP {resp.status_code}; "
                              "name the model: openai:URL?model=NAME")

    async def _model_name(self) -> str:
        if self.model is None:
            data = await self._post("/models", None)
            try:
                self.model = str(data["data"][0]["id"])
            except (KeyError, IndexError, TypeError) as e:
                raise PolicyError(f"cannot pick a model from {self.base_url}/models") from e
        return self.model

    async def agenerate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams,
        prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """POST ``/chat/completions`` and parse the first choice."""
        body: dict[str, Any] = {
            "model": await self._model_name(),
            "messages": to_openai_messages(messages, episode.images if episode else None),
            "max_tokens": sampling.max_tokens,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
        }
        if sampling.seed is not None:
            body["seed"] = sampling.seed
        if sampling.stop:
            body["stop"] = list(sampling.stop)
        if sampling.top_k > 0:
            body["top_k"] = sampling.top_k
        if sampling.logprobs:
            body["logprobs"] = True
            if self.top_logprobs > 0:  # llama.cpp returns log-probs only with top_logprobs >= 1
                body["top_logprobs"] = self.top_logprobs
        if self.return_token_ids:
            body["return_tokens_as_token_ids"] = True
        if tools and self.send_tools:
            body["tools"] = tools
        text, tool_calls, finish, ids, logprobs = parse_choice(
            await self._post("/chat/completions", body))
        if logprobs is not None and ids and len(ids) != len(logprobs):
            ids = []
        return Generation(
            text=text, token_ids=ids, logprobs=logprobs,
            finish_reason=finish, policy_version=self.version, tool_calls=tool_calls,
        )

    async def aclose(self) -> None:
        """Close the HTTP client of the current loop."""
        if self._client is not None:
            await self._client.aclose()
        self._client = self._semaphore = self._loop = None

    def describe(self) -> dict[str, Any]:
        """Name, URL and model."""
        return {**super().describe(), "base_url": self.base_url, "model": self.model}


__all__ = ["OpenAIPolicy", "check_base_url", "parse_choice", "retryable",
           "to_openai_messages"]
