"""In-process vLLM policy (GPU), token in and token out; vllm is imported only when used.

``vllm:MODEL?gpu_memory_utilization=0.5&max_model_len=8192``. Prompts are passed as token ids
(``TokensPrompt``), so the engine's exact sequence is what vLLM continues; the reply's
``token_ids`` and the sampled tokens' log-probs come back unchanged. vLLM batches concurrent
requests itself (continuous batching). Log-probs are those of the processed distribution
(temperature applied) where the installed vLLM supports ``logprobs_mode``.

Weight updates are not wired yet: a trainer that reloads weights out of band calls
:meth:`VLLMPolicy.set_version` so later tokens carry the new version.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from ..errors import PolicyError, missing_extra
from .base import EpisodeContext, Generation, Policy, SamplingParams
from .chat import ChatFormat


def _import_vllm() -> Any:
    try:
        import vllm
    except ImportError as e:
        raise missing_extra("vllm", "vllm") from e
    return vllm


class VLLMPolicy(Policy):
    """A model served by an in-process vLLM async engine."""

    name = "vllm"

    def __init__(self, model: str, *, timeout_s: float = 600.0, **engine_args: Any) -> None:
        super().__init__()
        vllm = _import_vllm()
        self.model_name = model
        self.timeout_s = timeout_s
        args = {"model": model, **engine_args}
        try:
            from vllm.v1.engine.async_llm import AsyncLLM

            engine_cls: Any = AsyncLLM
            args.setdefault("logprobs_mode", "processed_logprobs")
        except ImportError:
            engine_cls = vllm.AsyncLLMEngine
        try:
            self.engine = engine_cls.from_engine_args(vllm.AsyncEngineArgs(**args))
        except TypeError:  # an older vLLM without logprobs_mode
            args.pop("logprobs_mode", None)
            self.engine = engine_cls.from_engine_args(vllm.AsyncEngineArgs(**args))
        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(model)

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> VLLMPolicy:
        """``vllm:MODEL`` plus any ``AsyncEngineArgs`` as options."""
        if not arg:
            raise PolicyError("vllm needs a model: vllm:Qwen/Qwen2.5-0.5B-Instruct")
        return cls(arg, **options)

    def set_version(self, version: int) -> None:
        """Record that the served weights are now ``version``."""
        self.version = version

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
        vllm = _import_vllm()
        from vllm.inputs import TokensPrompt

        if prompt_token_ids is None:
            prompt_token_ids = ChatFormat(self.tokenizer).prompt_ids(messages, tools)
        params = vllm.SamplingParams(
            max_tokens=sampling.max_tokens, temperature=sampling.temperature,
            top_p=sampling.top_p, top_k=sampling.top_k if sampling.top_k > 0 else -1,
            seed=sampling.seed, stop=list(sampling.stop) or None,
            logprobs=0 if sampling.logprobs else None,
        )
        version = self.version
        final = None

        async def _consume() -> None:
            nonlocal final
            async for out in self.engine.generate(
                TokensPrompt(prompt_token_ids=list(prompt_token_ids)), params,
                request_id=uuid.uuid4().hex,
            ):
                final = out

        try:
            await asyncio.wait_for(_consume(), self.timeout_s)
        except TimeoutError as e:
            raise PolicyError(f"vllm generation took longer than {self.timeout_s:.0f}s") from e
        if final is None or not final.outputs:
            raise PolicyError("vllm returned no output")
        o = final.outputs[0]
        ids = list(o.token_ids)
        logprobs = None
        if sampling.logprobs and o.logprobs:
            logprobs = [float(step[tok].logprob) for step, tok in zip(o.logprobs, ids, strict=True)]
        return Generation(
            text=o.text, token_ids=ids, logprobs=logprobs,
            finish_reason="length" if o.finish_reason == "length" else "stop",
            policy_version=version, prompt_token_ids=list(prompt_token_ids),
        )

    def close(self) -> None:
        """Shut the engine down."""
        shutdown = getattr(self.engine, "shutdown", None)
        if callable(shutdown):
            shutdown()


__all__ = ["VLLMPolicy"]
