"""Policies: one async interface over HTTP servers, in-process models and scripted agents.

Select one by string with :func:`load_policy`: ``openai:http://host:8000/v1?model=NAME``,
``hf:smollm2-135m``, ``hf-vision:PATH``, ``vllm:MODEL``, ``scripted``, ``replay:PATH``,
``random``, ``fake:TEXT``.
Backends register through the ``agentgym_register_policies`` hook (see :mod:`.plugin`).
"""

from __future__ import annotations

import importlib
from typing import Any

from ..models import load_model_and_tokenizer
from .base import EpisodeContext, Generation, Policy, SamplingParams, derive_seed
from .fake import FakePolicy, FakeTokenizer, LogNormalLatency
from .loader import load_policy, parse_policy_spec
from .trainable import TrainablePolicy, load_trainable_policy, trainable_backends

_LAZY = {
    "HFPolicy": ".hf",
    "HFVisionPolicy": ".hf_vision",
    "ReplayPolicy": ".scripted",
    "VisionChatFormat": ".vision",
    "cache_argument": ".hf_decode",
    "image_inputs": ".vision",
    "output_cache": ".hf_decode",
}
"""The in-process backends, imported on first use (loading the plugins imports none)."""

__all__ = [
    "EpisodeContext",
    "FakePolicy",
    "FakeTokenizer",
    "Generation",
    "HFPolicy",
    "HFVisionPolicy",
    "LogNormalLatency",
    "Policy",
    "ReplayPolicy",
    "SamplingParams",
    "TrainablePolicy",
    "VisionChatFormat",
    "cache_argument",
    "derive_seed",
    "image_inputs",
    "load_model_and_tokenizer",
    "load_policy",
    "load_trainable_policy",
    "output_cache",
    "parse_policy_spec",
    "trainable_backends",
]


def __getattr__(name: str) -> Any:
    """Import the in-process backends of ``__all__`` on first use."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
