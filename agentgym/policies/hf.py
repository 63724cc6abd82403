"""In-process transformers policy that batches concurrent requests into one decode.

Requests from many episodes are collected for ``batch_wait_ms`` (and for as long as the previous
batch is still decoding), grouped by sampling settings, left-padded and decoded together on one
worker thread (:func:`~agentgym.policies.hf_decode.decode_batch`). Each request gets back its
exact generated ids, their log-probs (``log_softmax(logits / T)`` in fp32, see
:mod:`~agentgym.policies.hf_decode`) and the weight version of each token.

Weight updates from a trainer in the same process: share the module (pass ``model=module``) and
wrap the optimizer step in :meth:`HFPolicy.updating_weights`, or call
:meth:`HFPolicy.load_state_dict`. Both bump :attr:`~Policy.version`; an update waits for the
current decode step, so tokens after it carry the new version.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import PolicyError
from ..settings import DEFAULT_DEVICE, resolve_device
from .base import EpisodeContext, Generation, Policy, SamplingParams

logger = logging.getLogger(__name__)


@dataclass
class _Pending:
    prompt_ids: list[int]
    sampling: SamplingParams
    future: asyncio.Future[Generation]
    images: list[bytes] = field(default_factory=list)
    """The observation images the prompt's placeholders stand for (vision-language models)."""

    @property
    def key(self) -> tuple[float, float, int]:
        s = self.sampling
        return (s.temperature, s.top_p, s.top_k)


def _module_device(model: Any) -> str:
    """The device of a module's first parameter (``cpu`` for a module without any)."""
    try:
        return str(next(model.parameters()).device)
    except (AttributeError, StopIteration, TypeError):
        return "cpu"


class HFPolicy(Policy):
    """A causal LM from transformers, default SmolLM2-135M-Instruct from the fp32 cache."""

    name = "hf"

    def __init__(
        self,
        model: Any = "smollm2-135m",
        tokenizer: Any = None,
        *,
        device: str = DEFAULT_DEVICE,
        max_batch_size: int = 16,
        batch_wait_ms: float = 5.0,
        timeout_s: float = 600.0,
        num_threads: int | None = None,
        autocast: Any = None,
    ) -> None:
        super().__init__()
        if num_threads is not None:
            import torch

            # intra-op threads are process-wide; on a shared CPU, 1 thread avoids spin contention
            torch.set_num_threads(num_threads)
        if isinstance(model, str):
            from ..models import check_model_name, load_model_and_tokenizer

            check_model_name(model)  # a typo fails here, before torch is imported
            device = resolve_device(device)
            self.model_name = model
            model, loaded_tokenizer = load_model_and_tokenizer(model, device=device)
            tokenizer = tokenizer or loaded_tokenizer
        else:
            self.model_name = getattr(getattr(model, "config", None), "_name_or_path", "module")
            if device in (None, "auto"):  # a module is already placed: report where it is
                device = _module_device(model)
        self.device: str = device
        """Where the model runs: ``device`` resolved by :func:`agentgym.settings.resolve_device`
        when loaded by name; a given module's own device (or the one named) otherwise."""
        if tokenizer is None:
            raise PolicyError("HFPolicy needs a tokenizer when given a model object")
        self.model = model
        self.tokenizer = tokenizer
        self.autocast = autocast
        """``torch.autocast`` dtype of the decode forwards (bf16 over fp32 weights); None = off."""
        self.max_batch_size = max_batch_size
        self.batch_wait_s = batch_wait_ms / 1000.0
        self.timeout_s = timeout_s
        eos = tokenizer.eos_token_id
        self.eos_ids = set(eos if isinstance(eos, list) else [eos])
        gen_eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        self.eos_ids |= set(gen_eos if isinstance(gen_eos, list) else [gen_eos] if gen_eos else [])
        pad = tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else next(iter(self.eos_ids))
        self._weights_lock = threading.RLock()
        self._closed = threading.Event()
        """Set by :meth:`close`: a decode batch in progress stops before its next forward."""
        self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hf-decode")
        self._pending: list[_Pending] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup: asyncio.Event | None = None
        self._batcher: asyncio.Task[None] | None = None
        self.batches: list[int] = []
        """Size of every decoded batch (for tests and stats)."""

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> HFPolicy:
        """``hf:NAME_OR_PATH?device=auto&max_batch_size=16&batch_wait_ms=5&num_threads=1``."""
        return cls(arg or "smollm2-135m", **options)

    @classmethod
    def from_module(cls, model: Any, tokenizer: Any, **options: Any) -> HFPolicy:
        """Decode from ``model`` itself (a trainer's module: its updates are seen at once);
        the ``trainable`` factory of :mod:`agentgym.policies.trainable`."""
        return cls(model, tokenizer, **options)

    # -- weights -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _weights(self) -> Iterator[int]:
        if self._closed.is_set():  # Ctrl-C or shutdown: end the batch now, not after N tokens
            raise PolicyError("the hf policy was closed")
        with self._weights_lock:
            yield self.version

    @contextlib.contextmanager
    def updating_weights(self) -> Iterator[Any]:
        """Hold decoding while the block changes the shared module; bump the version after."""
        with self._weights_lock:
            yield self.model
            self.version += 1

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> None:
        """Copy new weights into the model between two decode steps and bump the version."""
        with self.updating_weights():
            self.model.load_state_dict(state_dict, strict=strict)

    # -- batching --------------------------------------------------------------------------------

    def _ensure_batcher(self) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._batcher is None or self._batcher.done():
            self._loop, self._wakeup, self._pending = loop, asyncio.Event(), []
            self._batcher = loop.create_task(self._run_batches(), name="hf-policy-batcher")
        return self._wakeup  # type: ignore[return-value]

    def _take_batch(self) -> list[_Pending]:
        self._pending = [p for p in self._pending if not p.future.done()]  # drop cancelled
        if not self._pending:
            return []
        key = self._pending[0].key
        batch = [p for p in self._pending if p.key == key][: self.max_batch_size]
        taken = {id(p) for p in batch}
        self._pending = [p for p in self._pending if id(p) not in taken]
        return batch

    async def _run_batches(self) -> None:
        from .hf_decode import DecodeRequest

        loop = asyncio.get_running_loop()
        wakeup = self._wakeup
        while True:
            if wakeup is None:
                return
            await wakeup.wait()
            await asyncio.sleep(self.batch_wait_s)  # let concurrent episodes join the batch
            batch = self._take_batch()
            if not self._pending:
                wakeup.clear()
            if not batch:
                continue
            s = batch[0].sampling
            requests = [DecodeRequest(p.prompt_ids, p.sampling.max_tokens, p.sampling.seed)
                        for p in batch]
            self.batches.append(len(batch))
            try:
                job = functools.partial(
                    self._decode, batch, requests, temperature=s.temperature,
                    top_p=s.top_p, top_k=s.top_k,
                )
                results = await loop.run_in_executor(self._executor, job)
            except Exception as e:  # a failed batch fails its requests, not the batcher
                logger.exception("hf decode failed")
                for p in batch:
                    if not p.future.done():
                        p.future.set_exception(PolicyError(f"hf decode failed: {e}"))
                continue
            for p, r in zip(batch, results, strict=True):
                if p.future.done():  # the episode gave up (timeout, cancel)
                    continue
                p.future.set_result(Generation(
                    text=self.tokenizer.decode(r.token_ids, skip_special_tokens=True),
                    token_ids=r.token_ids,
                    logprobs=r.logprobs if p.sampling.logprobs else None,
                    finish_reason=r.finish_reason,
                    policy_version=r.versions[0] if r.versions else self.version,
                    versions=r.versions if len(set(r.versions)) > 1 else None,
                    prompt_token_ids=p.prompt_ids,
                ))

    async def agenerate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams,
        prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """Queue the request for the next batch and wait for its result."""
        images = list(episode.images) if episode is not None else []
        if prompt_token_ids is None:
            prompt_token_ids = self.chat_format().prompt_ids(messages, tools, images=images)
        pending = _Pending(list(prompt_token_ids), sampling,
                           asyncio.get_running_loop().create_future(),
                           self._prompt_images(prompt_token_ids, images))
        wakeup = self._ensure_batcher()
        future = pending.future
        self._pending.append(pending)
        wakeup.set()
        try:
            return await asyncio.wait_for(future, self.timeout_s)
        except TimeoutError as e:
            raise PolicyError(f"hf generation took longer than {self.timeout_s:.0f}s") from e

    def _decode(self, batch: list[_Pending], requests: list[Any], **sampling: Any) -> list[Any]:
        """One decode batch on the worker thread (images, if any, are prepared here too)."""
        from .hf_decode import decode_batch

        return decode_batch(self.model, requests, eos_ids=self.eos_ids, pad_id=self.pad_id,
                            weights=self._weights, autocast=self.autocast,
                            prefill=self._prefill_inputs(batch), **sampling)

    def _prompt_images(self, prompt_ids: list[int], images: list[bytes]) -> list[bytes]:
        """The images a request's prompt refers to (a text model: none)."""
        return []

    def _prefill_inputs(self, batch: list[_Pending]) -> dict[str, Any] | None:
        """Extra first-forward inputs of a decode batch (a text model: none)."""
        return None

    async def aclose(self) -> None:
        """Stop the batcher task of the current event loop."""
        if self._batcher is not None and not self._batcher.done():
            self._batcher.cancel()
            await asyncio.gather(self._batcher, return_exceptions=True)
        self._batcher = None

    def close(self) -> None:
        """Stop the decode thread (a batch in progress stops before its next forward) and the
        batcher task, from any thread: a policy closed between two runs of its loop (a frozen
        opponent leaving a self-play pool) would otherwise be collected with its batcher
        pending, which asyncio reports as an error."""
        self._closed.set()
        self._executor.shutdown(wait=False, cancel_futures=True)
        task, self._batcher = self._batcher, None
        if task is not None and not task.done() and not task.get_loop().is_closed():
            # safe from any thread, whether or not the loop runs; the queued call keeps the
            # task alive until the loop's next run settles the cancel
            task.get_loop().call_soon_threadsafe(task.cancel)

    def describe(self) -> dict[str, Any]:
        """Name, model and version."""
        return {**super().describe(), "model": str(self.model_name)}


__all__ = ["HFPolicy"]
