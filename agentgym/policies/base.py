"""The policy interface: generate one model turn from the conversation so far.

A policy is token-in-token-out capable: when it exposes a :attr:`Policy.tokenizer`, the rollout
engine keeps the exact token sequence of the episode and passes it as ``prompt_token_ids``, so no
earlier turn is ever re-tokenized. Policies without a tokenizer (HTTP servers, scripted experts)
work from ``messages`` alone.
"""

from __future__ import annotations

import asyncio
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class SamplingParams:
    """How to sample one turn."""

    max_tokens: int = 256
    """Most new tokens for this turn (the engine lowers it to fit the episode's token budget)."""
    temperature: float = 1.0
    """0 means greedy decoding."""
    top_p: float = 1.0
    """Nucleus sampling mass; 1.0 disables it."""
    top_k: int = 0
    """Keep only the k most likely tokens; 0 disables it."""
    stop: tuple[str, ...] = ()
    """Extra stop strings (backends that support them)."""
    seed: int | None = None
    """Seed of this request's sampler; the engine derives one per episode and turn."""
    logprobs: bool = True
    """Ask for the log-prob of each generated token."""

    def with_(self, **changes: Any) -> SamplingParams:
        """A copy with some fields changed."""
        return replace(self, **changes)


@dataclass
class Generation:
    """One model turn: text, exact generated token ids, their log-probs and the stop reason."""

    text: str
    token_ids: list[int] = field(default_factory=list)
    """Generated ids, exactly as sampled (empty when the backend does not report them)."""
    logprobs: list[float] | None = None
    """Behaviour log-prob of each generated token, or None."""
    finish_reason: str = "stop"
    """``stop`` (end of turn), ``length`` (max_tokens), ``tool_calls`` or ``abort``."""
    policy_version: int = 0
    """Version of the weights that generated the turn (the first token's, see ``versions``)."""
    prompt_token_ids: list[int] | None = None
    """The ids the turn was conditioned on, when the backend knows them."""
    versions: list[int] | None = None
    """Per-token policy version when the weights changed during the turn; else None."""
    tool_calls: list[dict[str, Any]] | None = None
    """Native OpenAI ``tool_calls`` returned by a server, if any."""
    action: Any = None
    """What to pass to ``env.step`` when it is not the text (scripted expert actions)."""

    def token_versions(self) -> list[int]:
        """The policy version of every generated token."""
        if self.versions is not None:
            return list(self.versions)
        return [self.policy_version] * len(self.token_ids)


@dataclass
class EpisodeContext:
    """What a policy may know about the episode it is generating for."""

    episode_id: str
    task_id: str | None = None
    sample_idx: int = 0
    turn: int = 0
    seed: int | None = None
    expert_actions: Callable[[], Awaitable[list[Any] | None]] | None = None
    """Coroutine function returning the env's expert actions for this task (scripted policy)."""
    images: list[bytes] = field(default_factory=list)
    """Observation images of the episode so far; messages refer to them by index."""
    state: dict[str, Any] = field(default_factory=dict)
    """Scratch space a policy may use across the turns of one episode."""


def derive_seed(*parts: Any) -> int:
    """A stable 31-bit seed from any printable parts (independent of ``PYTHONHASHSEED``)."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


class Policy(ABC):
    """Base class of every policy backend.

    Subclasses implement :meth:`agenerate`. A policy with a :attr:`tokenizer` receives
    ``prompt_token_ids`` (the episode's exact ids so far) and must generate from them.
    """

    name: str = "policy"
    tokenizer: Any = None
    """A Hugging Face-style tokenizer with a chat template, or None for message-level policies."""

    def __init__(self) -> None:
        self.version = 0

    def chat_format(self) -> Any:
        """The :class:`~agentgym.policies.chat.ChatFormat` building this policy's exact ids.

        None for a message-level policy (no :attr:`tokenizer`). A vision-language policy returns
        one that also puts the observation images' placeholder tokens in.
        """
        if self.tokenizer is None:
            return None
        from .chat import ChatFormat

        return ChatFormat(self.tokenizer)

    @property
    def policy_version(self) -> int:
        """Version of the current weights; bumped on every weight update."""
        return self.version

    @abstractmethod
    async def agenerate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams,
        prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """Generate the next assistant turn for ``messages`` (OpenAI-style dicts)."""

    def generate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams | None = None,
        prompt_token_ids: list[int] | None = None,
        timeout_s: float = 600.0,
    ) -> Generation:
        """Sync twin of :meth:`agenerate` (runs its own event loop; not for use inside one)."""

        async def _go() -> Generation:
            try:
                return await asyncio.wait_for(
                    self.agenerate(
                        messages,
                        tools=tools,
                        sampling=sampling or SamplingParams(),
                        prompt_token_ids=prompt_token_ids,
                    ),
                    timeout_s,
                )
            finally:
                await self.aclose()

        return asyncio.run(_go())

    async def acheck(self) -> None:
        """Raise :class:`~agentgym.errors.PolicyError` when the policy cannot serve at all.

        Runners call it once before the first episode (a dead server, a bad URL), so a run that
        cannot succeed stops with one clear error instead of aborting every episode.
        """
        return None

    async def aclose(self) -> None:
        """Release connections, threads or background tasks bound to the current event loop."""
        return None

    def close(self) -> None:
        """Release every resource (models, servers); the default does nothing."""
        return None

    def describe(self) -> dict[str, Any]:
        """JSON-safe description recorded in eval results."""
        return {"name": self.name, "class": type(self).__name__, "version": self.version}


__all__ = ["EpisodeContext", "Generation", "Policy", "SamplingParams", "derive_seed"]
