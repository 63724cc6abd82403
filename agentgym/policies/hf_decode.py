"""Batched incremental decoding with exact token ids, log-probs and per-token weight versions.

One call decodes a batch of prompts of different lengths (left-padded, positions from the
attention mask) with a KV cache. Each row samples with its own seeded generator, so a request's
tokens do not depend on which other requests share its batch (up to float rounding).

Log-probs are those of the distribution the trainer recomputes: ``log_softmax(logits / T)``
over the full vocabulary, in fp32, with ``T`` the sampling temperature (``T = 1`` for greedy).
top-k / top-p only restrict which token is drawn; they do not renormalise the recorded log-prob.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class DecodeRequest:
    """One prompt to continue."""

    prompt_ids: list[int]
    max_new_tokens: int
    seed: int | None = None


@dataclass
class DecodeResult:
    """The continuation of one prompt."""

    token_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    finish_reason: str = "length"


def _filter(scaled: torch.Tensor, top_k: int, top_p: float) -> torch.Tensor:
    """Mask logits outside top-k / the top-p nucleus with -inf.  scaled: (B, V)."""
    if top_k > 0 and top_k < scaled.shape[-1]:
        kth = torch.topk(scaled, top_k, dim=-1).values[:, -1:]  # (B, 1)
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, order = torch.sort(scaled, descending=True, dim=-1)
        cum = torch.softmax(sorted_logits, dim=-1).cumsum(-1)
        drop = cum - torch.softmax(sorted_logits, dim=-1) > top_p  # keep the token crossing p
        sorted_logits = sorted_logits.masked_fill(drop, float("-inf"))
        scaled = torch.full_like(scaled, float("-inf")).scatter(-1, order, sorted_logits)
    return scaled


@torch.inference_mode()
def decode_batch(
    model: Any,
    requests: list[DecodeRequest],
    *,
    temperature: float,
    top_p: float = 1.0,
    top_k: int = 0,
    eos_ids: set[int],
    pad_id: int,
    weights: Callable[[], AbstractContextManager[int]],
) -> list[DecodeResult]:
    """Decode every request until EOS or its ``max_new_tokens``.

    ``weights()`` is entered around each forward pass and yields the current policy version;
    a trainer updating the weights between two steps changes the version of later tokens.
    """
    device = next(model.parameters()).device
    b = len(requests)
    width = max(len(r.prompt_ids) for r in requests)
    ids = torch.full((b, width), pad_id, dtype=torch.long, device=device)
    mask = torch.zeros((b, width), dtype=torch.long, device=device)
    for i, r in enumerate(requests):
        n = len(r.prompt_ids)
        ids[i, width - n :] = torch.tensor(r.prompt_ids, dtype=torch.long, device=device)
        mask[i, width - n :] = 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)  # (B, T)
    generators = []
    for r in requests:
        g = torch.Generator(device=device)
        g.manual_seed(r.seed if r.seed is not None else int(torch.seed() & 0x7FFFFFFF))
        generators.append(g)
    results = [DecodeResult() for _ in requests]
    live = [r.max_new_tokens > 0 for r in requests]
    for i, r in enumerate(requests):
        if r.max_new_tokens <= 0:
            results[i].finish_reason = "length"
    cache = None
    step_ids, step_pos = ids, positions
    temp = temperature if temperature > 0 else 1.0
    while any(live):
        with weights() as version:
            out = model(input_ids=step_ids, attention_mask=mask, position_ids=step_pos,
                        past_key_values=cache, use_cache=True)
        cache = out.past_key_values
        logits = out.logits[:, -1, :].float()  # (B, V)
        logp = torch.log_softmax(logits / temp, dim=-1)  # (B, V)
        if temperature > 0:
            probs = torch.softmax(_filter(logits / temp, top_k, top_p), dim=-1)  # (B, V)
            picks = [
                int(torch.multinomial(probs[i], 1, generator=generators[i]))
                if live[i] else pad_id
                for i in range(b)
            ]
            next_ids = torch.tensor(picks, dtype=torch.long, device=device)  # (B,)
        else:
            next_ids = logp.argmax(-1)  # (B,)
        chosen = logp.gather(1, next_ids[:, None]).squeeze(1).tolist()  # (B,)
        for i, tok in enumerate(next_ids.tolist()):
            if not live[i]:
                continue
            res = results[i]
            res.token_ids.append(tok)
            res.logprobs.append(chosen[i])
            res.versions.append(version)
            if tok in eos_ids:
                res.finish_reason, live[i] = "stop", False
            elif len(res.token_ids) >= requests[i].max_new_tokens:
                res.finish_reason, live[i] = "length", False
        step_ids = next_ids[:, None]  # (B, 1)
        step_pos = step_pos[:, -1:] + 1  # (B, 1)
        mask = torch.cat([mask, torch.ones((b, 1), dtype=mask.dtype, device=device)], dim=1)
    return results


__all__ = ["DecodeRequest", "DecodeResult", "decode_batch"]
