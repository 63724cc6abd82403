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

Then the policy version is bumped; the truncated importance weights (``tis_cap``) correct the
remaining generator/trainer mismatch.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import Any

from agentgym import PolicyError

logger = logging.getLogger(__name__)


class WeightSync:
    """Save weights to a folder and make the rollout policy load them."""

    def __init__(self, policy: Any, folder: str | Path, url: str = "", timeout_s: float = 600.0):
        self.policy = policy
        self.folder = Path(folder)
        self.url = url
        self.timeout_s = timeout_s

    def body(self) -> dict[str, Any]:
        """The JSON body for the server behind :attr:`url`."""
        if self.url.rstrip("/").endswith("collective_rpc"):
            return {"method": "reload_weights"}
        return {"model_path": str(self.folder)}

    def save(self, model: Any, tokenizer: Any = None) -> None:
        """Write the weights (LoRA merged into a copy, the trained adapters untouched)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if hasattr(model, "merge_and_unload"):
            model = copy.deepcopy(model).merge_and_unload()
        model.save_pretrained(self.folder)
        if tokenizer is not None and hasattr(tokenizer, "save_pretrained"):
            tokenizer.save_pretrained(self.folder)

    def push(self, model: Any, tokenizer: Any = None) -> None:
        """Save, trigger the reload, bump the policy version."""
        self.save(model, tokenizer)
        reload = getattr(self.policy, "reload_weights", None)
        if callable(reload):
            reload(str(self.folder))
        elif self.url:
            import httpx

            try:
                response = httpx.post(self.url, json=self.body(), timeout=self.timeout_s)
                response.raise_for_status()
            except httpx.HTTPError as e:
                raise PolicyError(f"weight reload at {self.url} failed: {e}") from e
        else:
            raise PolicyError("the policy has no reload_weights() and weight_sync_url is empty")
        setter = getattr(self.policy, "set_version", None)
        version = getattr(self.policy, "version", 0) + 1
        if callable(setter):
            setter(version)
        else:
            self.policy.version = version
        logger.info("weights pushed to the policy from %s", self.folder)


__all__ = ["WeightSync"]
