"""Pushing new weights to the rollout policy after each update.

In-process ``hf`` policy (the default, ``policy: ""``): the policy shares the trained module, so
nothing is copied; the optimizer step runs inside :meth:`HFPolicy.updating_weights`, which
pauses decoding and bumps the policy version that the rollout engine records per token.

Other policies. The trainer needs exact token ids, so the rollout policy must have a tokenizer:
the ``vllm:`` policy (``policy: vllm:<folder>``) does. After each step rank 0 saves the weights
(LoRA merged into a copy) with ``save_pretrained`` into ``weight_sync_dir`` and then either

- calls ``policy.reload_weights(folder)`` when the policy has that method: the ``vllm:`` policy's
  engine reloads its weights in place from the folder (vLLM's ``reload_weights`` through
  ``LLM.collective_rpc``; tested against vLLM's CPU build in ``tests/trainers/
  test_vllm_weight_sync.py``), or
- POSTs to ``weight_sync_url`` for an inference server: ``vllm serve`` started with
  ``VLLM_SERVER_DEV_MODE=1`` on ``weight_sync_dir`` takes ``http://host:8000/collective_rpc``
  with ``{"method": "reload_weights"}`` (tested against the real server in
  ``tests/policies/test_vllm_server.py``); SGLang takes ``http://host:30000/update_weights_from_disk``
  with ``{"model_path": "<weight_sync_dir>"}``.

  After a vLLM server's reload the push also asks it to rebuild a tied ``lm_head``
  (``{"method": "agentgym_refresh_heads"}``: the server must be started with
  ``--worker-extension-cls vllm_worker.WorkerExtension``, see
  ``agentgym/policies/vllm_worker.py``; on vLLM's CPU build the server's reload leaves a tied
  head's packed copy at the old weights) and to drop its prefix cache (``/reset_prefix_cache``:
  cached prompts were computed with the old weights). A server without the extension gets a
  warning once, not an error: on a GPU the head has no packed copy and the reload is complete.

Then the policy version is bumped; the truncated importance weights (``tis_cap``) correct the
remaining generator/trainer mismatch.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import Any

from agentgym import PolicyError

from .parts import MergesAdapters, ReloadsWeights, SavesPretrained, SetsVersion, Versioned

logger = logging.getLogger(__name__)


class WeightSync:
    """Save weights to a folder and make the rollout policy load them."""

    def __init__(self, policy: Any, folder: str | Path, url: str = "", timeout_s: float = 600.0):
        self.policy = policy
        self.folder = Path(folder)
        self.url = url
        self.timeout_s = timeout_s
        self._no_extension = False

    def body(self) -> dict[str, Any]:
        """The JSON body for the server behind :attr:`url`."""
        if self.url.rstrip("/").endswith("collective_rpc"):
            return {"method": "reload_weights"}
        return {"model_path": str(self.folder)}

    def save(self, model: Any, tokenizer: Any = None) -> None:
        """Write the weights (LoRA merged into a copy, the trained adapters untouched)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if isinstance(model, MergesAdapters):
            model = copy.deepcopy(model).merge_and_unload()
        model.save_pretrained(self.folder)
        if isinstance(tokenizer, SavesPretrained):
            tokenizer.save_pretrained(self.folder)

    def push(self, model: Any, tokenizer: Any = None) -> None:
        """Save, trigger the reload, bump the policy version."""
        self.save(model, tokenizer)
        if isinstance(self.policy, ReloadsWeights):
            self.policy.reload_weights(str(self.folder))
        elif self.url:
            self._post(self.url, self.body())
            if self.url.rstrip("/").endswith("collective_rpc"):
                self._after_vllm_reload()
        else:
            raise PolicyError("the policy has no reload_weights() and weight_sync_url is empty")
        version = (self.policy.version if isinstance(self.policy, Versioned) else 0) + 1
        if isinstance(self.policy, SetsVersion):
            self.policy.set_version(version)
        else:
            self.policy.version = version
        logger.info("weights pushed to the policy from %s", self.folder)

    def _post(self, url: str, body: dict[str, Any] | None = None) -> None:
        import httpx

        try:
            response = httpx.post(url, json=body, timeout=self.timeout_s)
            response.raise_for_status()
        except httpx.HTTPError as e:
            raise PolicyError(f"weight reload at {url} failed: {e}") from e

    def _after_vllm_reload(self) -> None:
        """Rebuild a tied head (the server's worker extension) and drop the prefix cache."""
        base = self.url.rstrip("/").removesuffix("collective_rpc").rstrip("/")
        if not self._no_extension:
            try:
                self._post(self.url, {"method": "agentgym_refresh_heads"})
            except PolicyError as e:
                self._no_extension = True
                logger.warning(
                    "the vLLM server at %s has no agentgym worker extension (%s): on vLLM's CPU "
                    "build a tied lm_head keeps its old weights after a reload; start it with "
                    "--worker-extension-cls vllm_worker.WorkerExtension", base, e)
        self._post(base + "/reset_prefix_cache")


__all__ = ["WeightSync"]
