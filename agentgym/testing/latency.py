"""A policy wrapper that waits an injected latency before each turn (tests and benchmarks).

Long-tail decode times decide how much asynchronous and partial rollouts gain; a tiny model
decodes in milliseconds, so benchmarks and tests put the tail in front of it:

>>> from agentgym.policies import FakePolicy, LogNormalLatency
>>> slow = LatencyPolicy(FakePolicy(["42"]), LogNormalLatency(median=0.01, sigma=1.5))
>>> slow.generate([{"role": "user", "content": "hi"}]).text
'42'

The delay of a turn is drawn from a generator seeded by ``(seed, episode id, turn)``, so every
run and every schedule sees the same latencies; a callable ``latency(context, version)``
decides instead when given. The wait is cancellable like a real decode.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from ..policies.base import EpisodeContext, Generation, Policy, SamplingParams, derive_seed
from ..policies.fake import LogNormalLatency

LatencyFn = Callable[[EpisodeContext | None, int], float]
"""``(episode context, policy version) -> seconds``."""


class LatencyPolicy(Policy):
    """``inner`` after a per-turn delay; version and tokenizer are the inner policy's."""

    def __init__(self, inner: Policy, latency: LogNormalLatency | LatencyFn | float,
                 seed: int = 0) -> None:
        self.inner = inner  # no Policy.__init__: it would reset the inner policy's version
        self.latency = latency
        self.seed = seed
        self.name = f"latency+{inner.name}"
        self.tokenizer = inner.tokenizer
        self.waited_s = 0.0
        """Total injected delay so far."""

    @property  # type: ignore[override]
    def version(self) -> int:
        """The inner policy's weight version."""
        return int(self.inner.version)

    @version.setter
    def version(self, value: int) -> None:
        self.inner.version = value

    def chat_format(self) -> Any:
        """The inner policy's chat format."""
        return self.inner.chat_format()

    def delay(self, episode: EpisodeContext | None) -> float:
        """Seconds to wait before this turn."""
        if isinstance(self.latency, LogNormalLatency):
            key = (episode.episode_id, episode.turn) if episode is not None else ()
            return self.latency.sample(random.Random(derive_seed(self.seed, *key)))
        if callable(self.latency):
            return float(self.latency(episode, self.version))
        return float(self.latency)

    async def agenerate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams,
        prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """Wait the turn's delay, then generate with the inner policy."""
        delay = self.delay(episode)
        if delay > 0:
            self.waited_s += delay
            await asyncio.sleep(delay)
        return await self.inner.agenerate(messages, tools=tools, sampling=sampling,
                                          prompt_token_ids=prompt_token_ids, episode=episode)

    async def aclose(self) -> None:
        """Release the inner policy's loop-bound resources."""
        await self.inner.aclose()

    def close(self) -> None:
        """Close the inner policy."""
        self.inner.close()


__all__ = ["LatencyFn", "LatencyPolicy"]
