"""Checking a rollout engine's log-probs against a fresh transformers forward pass.

The vLLM tests and ``benchmarks/vllm_rollouts.py`` compare the log-prob vLLM reports for each
sampled token with ``log_softmax(logits / T)`` of the same weights in transformers.
"""

from __future__ import annotations

from typing import Any

LOGPROB_TOL = 2e-3
"""Largest |vLLM - HF| per-token log-prob accepted (both fp32 on CPU; their kernels differ)."""


def hf_logprobs(model: Any, prompt: list[int], ids: list[int], temperature: float = 1.0
                ) -> list[float]:
    """``log_softmax(logits / T)`` of each of ``ids`` after ``prompt``, in a fresh forward pass."""
    import torch

    seq = torch.tensor([list(prompt) + list(ids)])
    with torch.no_grad():
        logits = model(seq).logits[0, len(prompt) - 1:-1].float()  # (len(ids), V)
    logp = torch.log_softmax(logits / (temperature if temperature > 0 else 1.0), dim=-1)
    return [float(x) for x in logp.gather(1, torch.tensor(ids)[:, None])[:, 0]]


def max_diff(a: list[float], b: list[float]) -> float:
    """The largest absolute difference of two lists; ``inf`` when their lengths differ."""
    if len(a) != len(b) or not a:
        return float("inf")
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


__all__ = ["LOGPROB_TOL", "hf_logprobs", "max_diff"]
