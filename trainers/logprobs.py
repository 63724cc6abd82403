"""Log-probs of chosen tokens from (bf16) logits: exact fp32 math, one saved copy of the logits.

``log_softmax(logits.float())`` followed by a gather keeps a full fp32 ``(B, T, V)`` copy of the
logits for the backward pass (twice the bf16 logits, the largest tensor of a small model's
update) and launches several full-vocabulary kernels. :func:`selective_logprobs` computes the
same value, ``z[y] / T - logsumexp(z / T)`` in fp32, chunk by chunk over rows, and saves only the
logits it was given plus a ``(B, T)`` log-normaliser; the backward pass recomputes the softmax
chunk by chunk (``d/dz = (onehot(y) - softmax(z / T)) / T``) and returns a gradient in the
logits' dtype. :func:`chunked_entropy` gives the per-position entropy the same way, without
gradients, for logging.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

CHUNK_ELEMENTS = 1 << 25
"""Largest fp32 scratch tensor (elements) a chunk materialises: 128 MiB."""


def _row_chunks(rows: int, vocab: int, width: int) -> int:
    """Rows per chunk so that ``rows x width x vocab`` fp32 scratch stays under the budget."""
    return max(1, min(rows, CHUNK_ELEMENTS // max(vocab * width, 1)))


class _SelectiveLogprobs(torch.autograd.Function):
    """``z[y]/T - logsumexp(z/T)`` with a chunked, recomputing backward."""

    @staticmethod
    def forward(ctx: Any, logits: Tensor, targets: Tensor, temperature: float) -> Tensor:
        b, t, v = logits.shape
        step = _row_chunks(b, v, t)
        lse = torch.empty((b, t), dtype=torch.float32, device=logits.device)
        for lo in range(0, b, step):
            chunk = logits[lo:lo + step].float() / temperature  # (c, T, V) fp32 scratch
            lse[lo:lo + step] = torch.logsumexp(chunk, dim=-1)
        picked = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1).float() / temperature
        ctx.save_for_backward(logits, targets, lse)
        ctx.temperature = temperature
        return picked - lse  # (B, T)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None, None]:
        logits, targets, lse = ctx.saved_tensors
        temperature = ctx.temperature
        b, t, v = logits.shape
        step = _row_chunks(b, v, t)
        out = torch.empty_like(logits)
        for lo in range(0, b, step):
            g = grad[lo:lo + step].float() / temperature  # (c, T)
            probs = torch.exp(logits[lo:lo + step].float() / temperature
                              - lse[lo:lo + step].unsqueeze(-1))  # (c, T, V)
            d = -probs * g.unsqueeze(-1)
            d.scatter_add_(-1, targets[lo:lo + step].unsqueeze(-1), g.unsqueeze(-1))
            out[lo:lo + step] = d.to(logits.dtype)
        return out, None, None


def selective_logprobs(logits: Tensor, targets: Tensor, temperature: float = 1.0) -> Tensor:
    """Log-prob of ``targets`` under ``softmax(logits / temperature)``, in fp32.

    ``logits`` is ``(B, T, V)`` in any float dtype, ``targets`` ``(B, T)``; returns ``(B, T)``
    float32. Equal to ``log_softmax(logits.float() / T).gather(-1, targets)``, with gradients,
    at about half the saved memory for bf16 logits.
    """
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    return _SelectiveLogprobs.apply(logits, targets, float(temperature))  # type: ignore[no-any-return]


@torch.no_grad()
def chunked_entropy(logits: Tensor, temperature: float = 1.0) -> Tensor:
    """Entropy of ``softmax(logits / T)`` at every position, ``(B, T, V) -> (B, T)`` float32."""
    b, t, v = logits.shape
    step = _row_chunks(b, v, t)
    out = torch.empty((b, t), dtype=torch.float32, device=logits.device)
    for lo in range(0, b, step):
        logp = torch.log_softmax(logits[lo:lo + step].float() / temperature, dim=-1)
        out[lo:lo + step] = -(logp.exp() * logp).sum(-1)
    return out


__all__ = ["CHUNK_ELEMENTS", "chunked_entropy", "selective_logprobs"]
