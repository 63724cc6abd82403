"""Policies: one async interface over HTTP servers, in-process models and scripted agents.

Select one by string with :func:`load_policy`: ``openai:http://host:8000/v1?model=NAME``,
``hf:smollm2-135m``, ``hf-vision:PATH``, ``vllm:MODEL``, ``scripted``, ``replay:PATH``,
``random``, ``fake:TEXT``.
Backends register through the ``agentgym_register_policies`` hook (see :mod:`.plugin`).
"""

from __future__ import annotations

from ..models import load_model_and_tokenizer
from .base import EpisodeContext, Generation, Policy, SamplingParams, derive_seed
from .fake import FakePolicy, FakeTokenizer, LogNormalLatency
from .hf import HFPolicy
from .hf_vision import HFVisionPolicy
from .loader import load_policy, parse_policy_spec
from .vision import VisionChatFormat, image_inputs

__all__ = [
    "EpisodeContext",
    "FakePolicy",
    "FakeTokenizer",
    "Generation",
    "HFPolicy",
    "HFVisionPolicy",
    "LogNormalLatency",
    "Policy",
    "SamplingParams",
    "VisionChatFormat",
    "derive_seed",
    "image_inputs",
    "load_model_and_tokenizer",
    "load_policy",
    "parse_policy_spec",
]
