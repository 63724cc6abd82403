"""Registers the built-in policy backends through the ``agentgym_register_policies`` hook.

Targets are ``"module:Class.from_spec"`` strings, imported only when a policy is loaded, so the
heavy backends (torch, vllm) cost nothing until used.
"""

from __future__ import annotations

import importlib.util

from ..hookspecs import hookimpl
from ..registrars import NamedRegistrar


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _vllm_venv() -> bool:
    from .vllm_runtime import vllm_python

    return vllm_python() is not None


@hookimpl
def agentgym_register_policies(register: NamedRegistrar) -> None:
    """Register openai, hf, hf-vision, vllm, scripted, replay, random and fake."""
    base = "agentgym.policies"
    register(
        "openai",
        f"{base}.openai_http:OpenAIPolicy.from_spec",
        description="OpenAI-compatible chat completions server (vLLM, SGLang, llama.cpp).",
    )
    register(
        "hf",
        f"{base}.hf:HFPolicy.from_spec",
        description="In-process transformers model; batches concurrent requests; exact tokens.",
        trainable=f"{base}.hf:HFPolicy.from_module",
        available=lambda: _has("torch") and _has("transformers"),
    )
    register(
        "hf-vision",
        f"{base}.hf_vision:HFVisionPolicy.from_spec",
        trainable=f"{base}.hf_vision:HFVisionPolicy.from_module",
        description="In-process transformers vision-language model (SmolVLM/Idefics3) through "
        "AutoProcessor; screenshots become image tokens; exact tokens.",
        available=lambda: _has("torch") and _has("transformers") and _has("PIL"),
    )
    register(
        "vllm",
        f"{base}.vllm_engine:VLLMPolicy.from_spec",
        description="vLLM's engine in a worker process (its own venv: make setup-vllm).",
        available=_vllm_venv,
    )
    register(
        "scripted",
        f"{base}.scripted:ScriptedPolicy.from_spec",
        description="Replays the env's expert actions (env.expert_actions(task)).",
    )
    register(
        "replay",
        f"{base}.scripted:ReplayPolicy.from_spec",
        description="Replays recorded trajectories from a trajectory store or JSONL file.",
    )
    register(
        "random",
        f"{base}.random_policy:RandomPolicy.from_spec",
        description="Random text or random tool calls built from the tool schemas.",
    )
    register(
        "fake",
        f"{base}.fake:FakePolicy.from_spec",
        description="Scripted tokens with a configurable latency distribution (tests, benchmarks).",
    )
