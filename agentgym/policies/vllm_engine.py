"""The ``vllm:`` policy: vLLM's engine in a worker process, token in and token out.

``vllm:MODEL?max_model_len=2048&dtype=float32`` (any ``vllm.LLM`` engine argument as an option).
``MODEL`` is a folder, a hub id, or a project alias (``smollm2-135m``: the bundled GGUF converted
to an HF folder by :mod:`agentgym.models`). vLLM runs in its own virtual environment (its CPU
build pins a ``transformers`` the project's environment does not meet), so the engine lives in a
worker process started from that environment (:mod:`~agentgym.policies.vllm_runtime`) and
spoken to over a Unix socket: this is the in-process path of the project, one process removed.

Prompts go in as token ids (``TokensPrompt``), so the engine's exact sequence is what vLLM
continues; the reply's ``token_ids`` and each sampled token's log-prob come back unchanged. The
log-probs are vLLM's ``processed_logprobs``: ``log_softmax(logits / T)``, the distribution the
trainer recomputes. Concurrent requests waiting at the worker are generated as one batch. On the
CPU build the defaults are fp32 and ``enforce_eager``.

Weight sync: :meth:`VLLMPolicy.reload_weights` makes the engine reload its weights in place from
a folder (the trainer's ``save_pretrained``: vLLM's ``reload_weights`` through
``LLM.collective_rpc``) and resets the prefix cache; the trainer then bumps the version.
"""

from __future__ import annotations

from typing import Any

from ..errors import PolicyError
from .base import EpisodeContext, Generation, Policy, SamplingParams
from .chat import ChatFormat
from .vllm_runtime import WorkerClient

CPU_DEFAULTS: dict[str, Any] = {"dtype": "float32", "enforce_eager": True, "max_model_len": 2048,
                                "seed": 0, "logprobs_mode": "processed_logprobs",
                                "kv_cache_memory_bytes": 1 << 30, "enable_chunked_prefill": False}
"""Engine arguments the policy sets unless given: fp32 and eager (what the CPU build runs), a
fixed 1 GiB KV cache (~23k tokens of SmolLM2-135M) instead of a share of the machine's RAM, and
no chunked prefill: a prompt prefilled in chunks has its seeded generator rewound after each
unfinished chunk, which the CPU generator cannot do ("CPU Generator does not use offset", and
the whole batch fails), so a batch whose prompts exceed one step's token budget broke."""

PREFILL_BUDGET = 4096
"""Tokens one engine step prefills without chunked prefill (at least ``max_model_len``)."""


def defaults() -> dict[str, Any]:
    """:data:`CPU_DEFAULTS` without a CUDA GPU; on one, vLLM's own (dtype auto, CUDA graphs,
    KV cache sized by ``gpu_memory_utilization``) plus processed log-probs."""
    try:
        import torch

        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    if gpu:
        return {"seed": 0, "logprobs_mode": "processed_logprobs"}
    return dict(CPU_DEFAULTS)


class VLLMPolicy(Policy):
    """A model served by vLLM's engine in a worker process (exact token ids and log-probs)."""

    name = "vllm"

    def __init__(self, model: str, *, timeout_s: float = 600.0, python: str | None = None,
                 **engine_args: Any) -> None:
        super().__init__()
        from ..models import resolve_model_path

        self.model_name = model
        self.model_path = str(resolve_model_path(model))
        self.timeout_s = timeout_s
        args = {**defaults(), **engine_args, "model": self.model_path}
        if args.get("enable_chunked_prefill") is False:  # a whole prompt must fit in a step
            args.setdefault("max_num_batched_tokens",
                            max(PREFILL_BUDGET, int(args.get("max_model_len") or 0)))
        self.engine_args = args
        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(self.model_path)
        self.worker = WorkerClient(args, python=python, start_timeout_s=timeout_s)

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> VLLMPolicy:
        """``vllm:MODEL`` plus any ``vllm.LLM`` engine argument as an option."""
        if not arg:
            raise PolicyError("vllm needs a model: vllm:smollm2-135m or vllm:/path/to/folder")
        return cls(arg, **options)

    def set_version(self, version: int) -> None:
        """Record that the served weights are now ``version``."""
        self.version = version

    def reload_weights(self, folder: str) -> None:
        """Load the safetensors of ``folder`` into the running engine (the version is the
        caller's to bump: :class:`trainers.weight_sync.WeightSync` does)."""
        self.worker.call({"op": "load_weights", "folder": str(folder)}, self.timeout_s)

    async def agenerate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams,
        prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """Generate from the exact prompt ids (templated from ``messages`` when absent)."""
        if prompt_token_ids is None:
            prompt_token_ids = ChatFormat(self.tokenizer).prompt_ids(messages, tools)
        if sampling.max_tokens < 1:
            raise PolicyError(f"max_tokens must be at least 1, not {sampling.max_tokens}")
        params = {"max_tokens": sampling.max_tokens, "temperature": sampling.temperature,
                  "top_p": sampling.top_p, "top_k": sampling.top_k, "seed": sampling.seed,
                  "stop": list(sampling.stop), "logprobs": sampling.logprobs}
        version = self.version
        reply = await self.worker.request(
            {"op": "generate", "prompt": [int(t) for t in prompt_token_ids], "params": params},
            self.timeout_s)
        ids, logprobs = reply.get("token_ids"), reply.get("logprobs")
        if not (isinstance(ids, list) and all(type(t) is int for t in ids)
                and isinstance(reply.get("text"), str)
                and reply.get("finish_reason") in ("stop", "length")
                and (logprobs is None or (isinstance(logprobs, list) and len(logprobs) == len(ids)
                                          and all(isinstance(x, float) for x in logprobs)))):
            raise PolicyError(f"malformed reply from the vLLM worker: {str(reply)[:200]}")
        return Generation(
            text=reply["text"], token_ids=ids, logprobs=logprobs if sampling.logprobs else None,
            finish_reason=reply["finish_reason"], policy_version=version,
            prompt_token_ids=list(prompt_token_ids),
        )

    def close(self) -> None:
        """Stop the worker process."""
        worker = getattr(self, "worker", None)
        if worker is not None:
            worker.close()
            self.worker = None  # type: ignore[assignment]

    def describe(self) -> dict[str, Any]:
        """Name, model and the engine's vLLM version."""
        worker = getattr(self, "worker", None)
        return {**super().describe(), "model": self.model_name,
                "vllm": worker.version if worker is not None else None}


__all__ = ["CPU_DEFAULTS", "VLLMPolicy", "defaults"]
