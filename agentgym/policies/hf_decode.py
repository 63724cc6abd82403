"""Batched incremental decoding with exact token ids, log-probs and per-token weight versions.

One call decodes a batch of prompts of different lengths (left-padded, positions from the
attention mask) with a KV cache. Each row samples from its own seeded stream (a per-row generator
on CPU, a counter-based hash on GPUs), so a request's tokens do not depend on which other requests
share its batch (up to float rounding). Nothing in the loop waits on the GPU except a periodic
"is every row done" check; the attention mask is allocated once for the whole decode.

Log-probs are those of the distribution the trainer recomputes: ``log_softmax(logits / T)``
over the full vocabulary, in fp32, with ``T`` the sampling temperature (``T = 1`` for greedy).
top-k / top-p only restrict which token is drawn; they do not renormalise the recorded log-prob.
"""

from __future__ import annotations

import contextlib
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


_MIX = (-4658895280553007687, -7723592293110705685)  # splitmix64 multipliers as signed int64
_LOW = [(1 << (64 - k)) - 1 for k in range(64)]


def _shr(x: torch.Tensor, k: int) -> torch.Tensor:
    """Logical right shift of int64 (torch's ``>>`` is arithmetic)."""
    return (x >> k) & _LOW[k]


def hashed_uniform(seeds: torch.Tensor, step: int, vocab: int) -> torch.Tensor:
    """Uniform noise in (0, 1), ``(B, V)``, a pure function of ``(seed, step, token)`` per row.

    A counter-based generator (the splitmix64 finaliser over ``seed, step, token``): one
    vectorised pass for the whole batch, no per-row generator and no host sync, and a row's
    noise does not depend on which other rows share its batch.
    """
    token = torch.arange(vocab, device=seeds.device, dtype=torch.long)  # (V,)
    x = seeds[:, None] * 0x9E3779B1 + (step * 0x632BE5AB + token)[None, :]  # (B, V)
    x = (x ^ _shr(x, 30)) * _MIX[0]
    x = (x ^ _shr(x, 27)) * _MIX[1]
    x = x ^ _shr(x, 31)
    return (_shr(x, 40).to(torch.float32) + 0.5) / float(1 << 24)  # 24 random bits


def _sample(
    scaled: torch.Tensor, seeds: torch.Tensor, step: int, generators: list[torch.Generator] | None
) -> torch.Tensor:
    """Draw one token per row from ``softmax(scaled)`` (``-inf`` = excluded); ``(B, V) -> (B,)``.

    On CUDA: the Gumbel-max trick over :func:`hashed_uniform` (one batched kernel chain). On
    CPU, where per-row calls are cheap: ``torch.multinomial`` with each row's generator.
    """
    if generators is None:
        gumbel = -torch.log(-torch.log(hashed_uniform(seeds, step, scaled.shape[-1])))
        return (scaled.float() + gumbel).argmax(-1)
    probs = torch.softmax(scaled.float(), dim=-1)
    picks = [torch.multinomial(probs[i], 1, generator=g) for i, g in enumerate(generators)]
    return torch.cat(picks)


def cache_argument(model: Any) -> str:
    """The keyword a model's ``forward`` takes its KV cache by: ``cache`` (transformers 5.2x,
    which deprecates ``past_key_values`` with a warning on every call) or ``past_key_values``.

    Wrappers (DDP, FSDP, PEFT's LoRA) pass ``**kwargs`` on: the first module with a concrete
    signature (the transformers model inside) decides.
    """
    import inspect

    modules = model.modules() if hasattr(model, "modules") else [model]
    for module in modules:
        try:
            params = inspect.signature(module.forward).parameters
        except (TypeError, ValueError, AttributeError):
            continue
        if "cache" in params:
            return "cache"
        if "past_key_values" in params:
            return "past_key_values"
    return "past_key_values"


def output_cache(out: Any) -> Any:
    """The KV cache a forward returned, under its current name or the older one."""
    if "cache" in getattr(out, "keys", lambda: ())():
        return out["cache"]
    return getattr(out, "past_key_values", None)


def _forward(model: Any, **kwargs: Any) -> Any:
    """A decode forward computing logits for the last position only, when the model allows."""
    try:
        return model(**kwargs, logits_to_keep=1)
    except TypeError as e:  # a model without transformers' ``logits_to_keep``
        if "logits_to_keep" not in str(e):
            raise
        return model(**kwargs)


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
    autocast: torch.dtype | None = None,
    check_every: int | None = None,
    prefill: dict[str, Any] | None = None,
) -> list[DecodeResult]:
    """Decode every request until EOS or its ``max_new_tokens``.

    ``weights()`` is entered around each forward pass and yields the current policy version;
    a trainer updating the weights between two steps changes the version of later tokens.
    Tokens, log-probs and the live flags stay on the device; the loop asks the host whether
    every row has finished only every ``check_every`` steps (default: 8 on CUDA, 1 on CPU), and
    the results are read back once at the end. ``autocast`` runs the forwards under
    ``torch.autocast`` (bf16 decoding of fp32 master weights on GPUs). ``prefill`` holds extra
    inputs of the first forward only, batch-first (a vision-language model's ``pixel_values``).
    """
    device = next(model.parameters()).device
    on_gpu = device.type != "cpu"
    check = check_every or (8 if on_gpu else 1)
    b = len(requests)
    width = max(len(r.prompt_ids) for r in requests)
    budget = max((r.max_new_tokens for r in requests), default=0)
    ids = torch.full((b, width), pad_id, dtype=torch.long)
    mask = torch.zeros((b, width + budget), dtype=torch.long)  # grows into the right part
    for i, r in enumerate(requests):
        n = len(r.prompt_ids)
        ids[i, width - n :] = torch.tensor(r.prompt_ids, dtype=torch.long)
        mask[i, width - n : width] = 1
    ids, mask = ids.to(device), mask.to(device)
    positions = (mask[:, :width].cumsum(-1) - 1).clamp(min=0)  # (B, T)
    seed_list = [r.seed if r.seed is not None else int(torch.seed() & 0x7FFFFFFF)
                 for r in requests]
    generators = None
    if not on_gpu:
        generators = [torch.Generator(device=device).manual_seed(s) for s in seed_list]
    seeds = torch.tensor(seed_list, dtype=torch.long, device=device)  # (B,)
    limits = torch.tensor([r.max_new_tokens for r in requests], device=device)  # (B,)
    eos = torch.tensor(sorted(eos_ids), dtype=torch.long, device=device)
    out_ids = torch.full((b, max(budget, 1)), pad_id, dtype=torch.long, device=device)
    out_logp = torch.zeros((b, max(budget, 1)), dtype=torch.float32, device=device)
    lengths = torch.zeros(b, dtype=torch.long, device=device)  # tokens generated per row
    stopped = torch.zeros(b, dtype=torch.bool, device=device)  # ended on EOS
    live = limits > 0
    versions: list[int] = []
    cache = None
    cache_kw = cache_argument(model)
    step_ids, step_pos = ids, positions
    temp = temperature if temperature > 0 else 1.0
    amp = (torch.autocast(device_type=device.type, dtype=autocast) if autocast is not None
           else contextlib.nullcontext())
    extra = {k: v.to(device) for k, v in (prefill or {}).items()}
    for step in range(budget):
        if step % check == 0 and not bool(live.any()):
            break
        with weights() as version, amp:
            out = _forward(model, input_ids=step_ids, attention_mask=mask[:, : width + step],
                           position_ids=step_pos, use_cache=True, **{cache_kw: cache},
                           **(extra if step == 0 else {}))
        versions.append(version)
        cache = output_cache(out)
        scaled = out.logits[:, -1, :].float() / temp  # (B, V)
        if temperature > 0:
            next_ids = _sample(_filter(scaled, top_k, top_p), seeds, step, generators)  # (B,)
        else:
            next_ids = scaled.argmax(-1)  # (B,)
        chosen = scaled.gather(1, next_ids[:, None]).squeeze(1) - torch.logsumexp(scaled, -1)
        next_ids = torch.where(live, next_ids, pad_id)
        out_ids[:, step] = next_ids
        out_logp[:, step] = chosen
        lengths += live.long()
        hit_eos = live & torch.isin(next_ids, eos)
        stopped |= hit_eos
        live = live & ~hit_eos & (lengths < limits)
        mask[:, width + step] = 1
        step_ids = next_ids[:, None]  # (B, 1)
        step_pos = step_pos[:, -1:] + 1  # (B, 1)
    n_list, stop_list = lengths.tolist(), stopped.tolist()  # the one read-back of the batch
    id_rows, logp_rows = out_ids.tolist(), out_logp.tolist()
    return [
        DecodeResult(id_rows[i][:n], logp_rows[i][:n], versions[:n],
                     "stop" if stop_list[i] else "length")
        for i, n in enumerate(n_list)
    ]


__all__ = ["DecodeRequest", "DecodeResult", "cache_argument", "decode_batch", "hashed_uniform",
           "output_cache"]
