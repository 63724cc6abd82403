"""Log-probs of chosen tokens from the final hidden states and the LM head, in chunks of tokens.

The usual path runs the LM head over every position and keeps the ``(B, T, V)`` logits alive
for the backward pass: micro-batch 16 x 1,024 tokens x 49,152 words is 3 GiB in fp32, the largest
tensor of a small model's update by far. :func:`head_logprobs` never holds them: it takes the
final (normed) hidden states ``(N, H)`` and the head's weight ``(V, H)``, computes
``z = h @ W.T / T`` for one chunk of tokens at a time (at most :data:`CHUNK_ELEMENTS` fp32
values), keeps ``z[y] - logsumexp(z)`` and the log-normaliser, and drops the chunk. The backward
pass recomputes each chunk's logits and returns ``dh = d @ W`` and ``dW = d.T @ h`` with
``d = (onehot(y) - softmax(z)) * g / T``; what is saved is the hidden states (already saved by
the model's own backward) and one float per token. Entropy, for logging, comes from the same
chunk in the forward pass (``lse - sum(p * z)``), at no extra matrix product.

:func:`final_hidden` gets the hidden states out of an unmodified transformers model: a forward
hook on the decoder's final norm records its output (only for the calling thread, so a decoder
sharing the weights in another thread is untouched) while the model runs with
``logits_to_keep=1``; the one logits position the model still computes checks, once per model,
that ``norm output @ W.T`` is what the model calls its logits (a model that scales or soft-caps
its logits, or whose head is not a plain ``Linear``, fails the check and keeps the full path).
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

logger = logging.getLogger(__name__)

CHUNK_ELEMENTS = 1 << 25
"""Largest fp32 logits chunk (elements) the forward or backward pass materialises on a CPU:
128 MiB."""
GPU_CHUNK_ELEMENTS = 1 << 26
"""The same on a GPU, where fewer, larger chunks keep the kernels busy: 256 MiB."""


def _chunk_rows(device: torch.device, vocab: int) -> int:
    """Tokens per chunk so that one chunk's fp32 logits stay under the device's budget."""
    budget = GPU_CHUNK_ELEMENTS if device.type == "cuda" else CHUNK_ELEMENTS
    return max(1, budget // max(vocab, 1))

_local = threading.local()
_heads: weakref.WeakKeyDictionary[Any, HeadParts | None] = weakref.WeakKeyDictionary()


class _HeadLogprobs(torch.autograd.Function):
    """``(h @ W.T)[y] / T - logsumexp(h @ W.T / T)`` per token, chunked, recomputing backward."""

    @staticmethod
    def forward(ctx: Any, hidden: Tensor, weight: Tensor, targets: Tensor, temperature: float,
                compute: torch.dtype, with_entropy: bool) -> tuple[Tensor, Tensor]:
        n = hidden.shape[0]
        step = _chunk_rows(hidden.device, weight.shape[0])
        w = weight.detach().to(compute)  # (V, H), a bf16 copy under mixed precision
        lse = torch.empty(n, dtype=torch.float32, device=hidden.device)
        picked = torch.empty(n, dtype=torch.float32, device=hidden.device)
        entropy = torch.zeros(n if with_entropy else 0, dtype=torch.float32, device=hidden.device)
        with torch.autocast(hidden.device.type, enabled=False):
            for lo in range(0, n, step):
                h = hidden[lo:lo + step].detach().to(compute)  # (c, H)
                z = (h @ w.T).float() / temperature  # (c, V)
                lse_c = torch.logsumexp(z, dim=-1)  # (c,)
                lse[lo:lo + step] = lse_c
                picked[lo:lo + step] = z.gather(-1, targets[lo:lo + step, None]).squeeze(-1)
                if with_entropy:
                    probs = torch.exp(z - lse_c[:, None])  # (c, V)
                    entropy[lo:lo + step] = lse_c - (probs * z).sum(-1)
        ctx.save_for_backward(hidden, weight, targets, lse)
        ctx.temperature, ctx.compute = temperature, compute
        ctx.mark_non_differentiable(entropy)
        return picked - lse, entropy

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _grad_entropy: Tensor | None) -> tuple[Any, ...]:
        hidden, weight, targets, lse = ctx.saved_tensors
        temperature, compute = ctx.temperature, ctx.compute
        n = hidden.shape[0]
        step = _chunk_rows(hidden.device, weight.shape[0])
        w = weight.detach().to(compute)  # (V, H)
        grad_h = torch.empty_like(hidden) if ctx.needs_input_grad[0] else None
        grad_w = (torch.zeros(weight.shape, dtype=torch.float32, device=weight.device)
                  if ctx.needs_input_grad[1] else None)
        with torch.autocast(hidden.device.type, enabled=False):
            for lo in range(0, n, step):
                h = hidden[lo:lo + step].detach().to(compute)  # (c, H)
                z = (h @ w.T).float() / temperature  # (c, V)
                g = grad[lo:lo + step].float() / temperature  # (c,)
                d = torch.exp(z - lse[lo:lo + step, None]).mul_(-g[:, None])  # (c, V)
                d.scatter_add_(-1, targets[lo:lo + step, None], g[:, None])
                d_c = d.to(compute)
                if grad_h is not None:
                    grad_h[lo:lo + step] = (d_c @ w).to(hidden.dtype)  # (c, H)
                if grad_w is not None:
                    grad_w += (d_c.T @ h).float()  # (V, H)
        return (grad_h, None if grad_w is None else grad_w.to(weight.dtype),
                None, None, None, None)


def head_logprobs(hidden: Tensor, weight: Tensor, targets: Tensor, temperature: float = 1.0,
                  compute_dtype: torch.dtype | None = None,
                  with_entropy: bool = False) -> tuple[Tensor, Tensor | None]:
    """Log-probs (and entropy) of ``targets`` under ``softmax(hidden @ weight.T / temperature)``.

    ``hidden`` is ``(..., H)``, ``weight`` the LM head's ``(V, H)``, ``targets`` ``(...)``;
    returns float32 tensors shaped like ``targets``. ``compute_dtype`` is the matrix products'
    dtype (bf16 under mixed precision; default the hidden states' own). Equal to
    ``log_softmax(hidden @ weight.T / T).gather(-1, targets)`` with gradients for ``hidden``
    and ``weight``, without ever holding more than one chunk of logits.
    """
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    shape = targets.shape
    flat_h = hidden.reshape(-1, hidden.shape[-1])  # (N, H)
    logp, entropy = _HeadLogprobs.apply(flat_h, weight, targets.reshape(-1),
                                        float(temperature), compute_dtype or hidden.dtype,
                                        with_entropy)
    return logp.view(shape), (entropy.view(shape) if with_entropy else None)


class HeadParts:
    """The decoder's final norm and the LM head of a model, and the hook that records the norm."""

    def __init__(self, norm: torch.nn.Module, head: torch.nn.Linear) -> None:
        self.norm, self.head = norm, head
        self.checked = False
        norm.register_forward_hook(_record)

    @property
    def weight(self) -> Tensor:
        """The LM head's weight ``(V, H)`` (tied to the embeddings in SmolLM2)."""
        return self.head.weight


def _record(_module: torch.nn.Module, _args: Any, output: Any) -> None:
    """Forward hook on the final norm: keep its output when this thread asked for it."""
    if getattr(_local, "recording", False):
        _local.hidden.append(output[0] if isinstance(output, tuple) else output)


def _unwrap(model: Any) -> Any:
    """The transformers model inside DDP and PEFT wrappers."""
    model = getattr(model, "module", model)  # DistributedDataParallel
    get_base = getattr(model, "get_base_model", None)  # peft.PeftModel
    return get_base() if callable(get_base) else model


def head_parts(model: Any) -> HeadParts | None:
    """The final norm and plain-``Linear`` LM head of ``model``, or None when it has none."""
    if model in _heads:
        return _heads[model]
    parts = None
    base = _unwrap(model)
    try:
        decoder = base.get_decoder()
        head = base.get_output_embeddings()
    except (AttributeError, NotImplementedError, TypeError):
        decoder = head = None
    norm = next((getattr(decoder, n) for n in ("norm", "final_layernorm", "ln_f")
                 if isinstance(getattr(decoder, n, None), torch.nn.Module)), None)
    if norm is not None and type(head) is torch.nn.Linear and head.bias is None:
        parts = HeadParts(norm, head)
    _heads[model] = parts
    return parts


def final_hidden(model: Any, parts: HeadParts, call: Callable[[], Any],
                 tolerance: float) -> list[Tensor] | None:
    """Run ``call()`` (forwards with ``logits_to_keep=1``) and return each forward's hidden states.

    ``call`` returns the model's output, or a tuple of outputs when it runs several forwards
    (the shared-prompt pass), or None when it gave up; the result lists the decoder's final norm
    output ``(B, T, H)`` of each forward in order. The first time for each model, the last
    position's ``hidden @ W.T`` is compared with the model's own logits (relative
    ``tolerance``); a model that fails the check is remembered and None is returned, so the
    caller takes the full-logits path.
    """
    _local.recording, _local.hidden = True, []
    try:
        out = call()
        hidden: list[Tensor] = _local.hidden
    finally:
        _local.recording, _local.hidden = False, []
    if out is None:
        return None
    outs = out if isinstance(out, tuple) else (out,)
    if len(hidden) != len(outs) or not all(hasattr(o, "logits") for o in outs):
        _heads[model] = None
        return None
    if not parts.checked:
        with torch.no_grad():
            theirs = outs[0].logits[:, -1]  # (B, V)
            mine = hidden[0][:, -1].to(theirs.dtype) @ parts.weight.T.to(theirs.dtype)
            scale = theirs.float().abs().max().clamp_min(1e-6)
            ok = mine.shape == theirs.shape and bool(
                ((mine.float() - theirs.float()).abs().max() / scale) <= tolerance)
        if not ok:
            logger.warning("%s: the final norm's output times the LM head is not the model's "
                           "logits (scaled or soft-capped?); using the full-logits path",
                           type(_unwrap(model)).__name__)
            _heads[model] = None
            return None
        parts.checked = True
    return hidden


__all__ = ["CHUNK_ELEMENTS", "GPU_CHUNK_ELEMENTS", "HeadParts", "final_hidden", "head_logprobs",
           "head_parts"]
