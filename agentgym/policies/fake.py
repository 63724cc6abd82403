"""A fake policy and a byte-level fake tokenizer: the mock of a real model (tests, benchmarks).

:class:`FakeTokenizer` speaks ChatML (``<|im_start|>role\\n...<|im_end|>\\n``) over bytes, so the
engine's token-in-token-out path runs without a model. :class:`FakePolicy` answers from a script
after a latency drawn from a seeded distribution (per episode and turn, so runs repeat exactly
whatever the scheduling).
"""

from __future__ import annotations

import asyncio
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import EpisodeContext, Generation, Policy, SamplingParams, derive_seed

_SPECIALS = {"<|im_start|>": 256, "<|im_end|>": 257, "<|pad|>": 258}
_SPECIAL_RE = re.compile("(" + "|".join(re.escape(s) for s in _SPECIALS) + ")")


class FakeTokenizer:
    """Bytes are ids 0-255; ``<|im_start|>``, ``<|im_end|>`` and ``<|pad|>`` are 256-258."""

    eos_token = "<|im_end|>"
    eos_token_id = 257
    pad_token_id = 258
    vocab_size = 259

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        """Ids of ``text``; special-token strings map to their ids."""
        ids: list[int] = []
        for part in _SPECIAL_RE.split(text):
            if part in _SPECIALS:
                ids.append(_SPECIALS[part])
            elif part:
                ids.extend(part.encode("utf-8"))
        return ids

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        """Text of ``ids`` (invalid UTF-8 is replaced)."""
        names = {v: k for k, v in _SPECIALS.items()}
        out, buf = [], bytearray()
        for i in ids:
            if i < 256:
                buf.append(i)
                continue
            out.append(buf.decode("utf-8", errors="replace"))
            buf = bytearray()
            if not skip_special_tokens:
                out.append(names.get(int(i), ""))
        out.append(buf.decode("utf-8", errors="replace"))
        return "".join(out)

    def apply_chat_template(
        self,
        messages: list[dict[str, Any]],
        tokenize: bool = False,
        add_generation_prompt: bool = False,
        **_: Any,
    ) -> Any:
        """ChatML rendering of ``messages``."""
        text = "".join(
            f"<|im_start|>{m['role']}\n{m.get('content') or ''}<|im_end|>\n" for m in messages
        )
        if add_generation_prompt:
            text += "<|im_start|>assistant\n"
        return self.encode(text) if tokenize else text


@dataclass(frozen=True)
class LogNormalLatency:
    """Per-turn latency ``median * exp(sigma * N(0, 1))`` seconds (mean ``median*e^(s^2/2)``)."""

    median: float = 0.2
    sigma: float = 1.0

    def sample(self, rng: random.Random) -> float:
        """One latency in seconds."""
        return self.median * math.exp(self.sigma * rng.gauss(0.0, 1.0))


Responder = Callable[[list[dict[str, Any]], EpisodeContext | None], str]


class FakePolicy(Policy):
    """Answers from ``responses`` (cycled by turn, or a function of the conversation)."""

    name = "fake"

    def __init__(
        self,
        responses: Sequence[str] | Responder = ("hello",),
        *,
        latency: LogNormalLatency | float = 0.0,
        tokenizer: FakeTokenizer | None = None,
        logprob: float = -0.5,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.responses = responses
        self.latency = latency
        self.tokenizer = tokenizer if tokenizer is not None else FakeTokenizer()
        self.logprob = logprob
        self.seed = seed
        self.calls: list[dict[str, Any]] = []
        """Every request received (messages, prompt ids, sampling), for assertions."""

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> FakePolicy:
        """``fake:TEXT?median=0.2&sigma=1.0``: always answer TEXT after a log-normal latency."""
        median, sigma = options.pop("median", 0.0), options.pop("sigma", 0.0)
        latency = LogNormalLatency(median, sigma) if median else 0.0
        return cls((arg or "hello",), latency=latency, **options)

    def _text(self, messages: list[dict[str, Any]], episode: EpisodeContext | None) -> str:
        if callable(self.responses):
            return self.responses(messages, episode)
        turn = episode.turn if episode is not None else len(self.calls)
        return self.responses[turn % len(self.responses)]

    def _delay(self, episode: EpisodeContext | None) -> float:
        if isinstance(self.latency, LogNormalLatency):
            key = (episode.episode_id, episode.turn) if episode else (len(self.calls),)
            return self.latency.sample(random.Random(derive_seed(self.seed, *key)))
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
        """Wait the drawn latency, then return the scripted text as tokens ending in EOS."""
        text = self._text(messages, episode)
        self.calls.append(
            {"messages": list(messages), "prompt_token_ids": prompt_token_ids, "sampling": sampling}
        )
        delay = self._delay(episode)
        if delay > 0:
            await asyncio.sleep(delay)
        ids = [*self.tokenizer.encode(text), self.tokenizer.eos_token_id]
        finish = "stop"
        if len(ids) > sampling.max_tokens:
            ids, finish = ids[: sampling.max_tokens], "length"
            text = self.tokenizer.decode(ids, skip_special_tokens=True)
        return Generation(
            text=text,
            token_ids=ids,
            logprobs=[self.logprob] * len(ids) if sampling.logprobs else None,
            finish_reason=finish,
            policy_version=self.version,
            prompt_token_ids=prompt_token_ids,
        )


__all__ = ["FakePolicy", "FakeTokenizer", "LogNormalLatency"]
