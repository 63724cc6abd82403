"""Token log-probs from hidden states through Apple's Cut Cross-Entropy kernel (GPU only, lazy).

``cut-cross-entropy`` (``pip install cut-cross-entropy``; Triton) computes the cross-entropy of
``hidden @ weight.T`` without materialising the logits, in one fused kernel per direction: the
same job as :func:`agentgym.trainers.head_logprobs.head_logprobs`, faster on a GPU. It is used
with ``filter_eps=None`` (no gradient filtering, so the gradient is exact) and
``reduction="none"`` (one value per token); the temperature divides the hidden states, which is
the same as dividing the logits. Imported only when called, so a CPU install never needs it.
"""

from __future__ import annotations

import importlib.util

import torch
from torch import Tensor


def fused_available(device: torch.device, compute_dtype: torch.dtype) -> bool:
    """True on a CUDA device where ``cut_cross_entropy`` is installed, for a bf16 or fp16
    computation (its backward kernel takes no fp32: an fp32 update keeps the chunked path)."""
    return (device.type == "cuda" and compute_dtype in (torch.bfloat16, torch.float16)
            and importlib.util.find_spec("cut_cross_entropy") is not None)


def fused_head_logprobs(hidden: Tensor, weight: Tensor, targets: Tensor, temperature: float,
                        compute_dtype: torch.dtype) -> Tensor:
    """Log-probs ``(...)`` of ``targets`` under ``softmax(hidden @ weight.T / T)``, float32.

    ``hidden`` is ``(..., H)``, ``weight`` ``(V, H)``; the kernel runs in ``compute_dtype``
    (bf16 or fp16 under mixed precision) and the gradient reaches both inputs.
    """
    from cut_cross_entropy import linear_cross_entropy

    e = (hidden / temperature).to(compute_dtype)
    loss = linear_cross_entropy(e, weight.to(compute_dtype), targets, reduction="none",
                                filter_eps=None, impl="cce")  # (...): -log p(target)
    return -loss.float()


__all__ = ["fused_available", "fused_head_logprobs"]
