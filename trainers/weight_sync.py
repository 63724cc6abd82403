"""Pushing new weights to the rollout policy after each update.

In-process (the default, ``policy: ""``): the ``hf`` policy shares the trained module, so nothing
is copied; the optimizer step runs inside :meth:`HFPolicy.updating_weights`, which pauses
decoding and bumps the policy version that the rollout engine records per token.

Inference server (``policy: openai:http://host:8000/v1?model=...`` with ``weight_sync_url``):
documented and untested here (no GPU). After each step rank 0 saves the weights with
``save_pretrained`` into ``weight_sync_dir`` and POSTs to ``weight_sync_url``:

- vLLM (``vllm serve`` started with ``VLLM_SERVER_DEV_MODE=1``, serving ``weight_sync_dir``):
  ``weight_sync_url: http://host:8000/collective_rpc`` sends ``{"method": "reload_weights"}``,
  which re-reads the weights from the served folder;
- SGLang: ``weight_sync_url: http://host:30000/update_weights_from_disk`` sends
  ``{"model_path": "<weight_sync_dir>"}``.

The server's next requests then use the new weights; the trainer increments the policy version
it expects, and the truncated importance weights (``tis_cap``) correct the remaining mismatch.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import Any

from agentgym import PolicyError

logger = logging.getLogger(__name__)


class DiskReloadSync:
    """Save weights to a folder and ask an inference server to reload them over HTTP."""

    def __init__(self, url: str, folder: str | Path, timeout_s: float = 600.0) -> None:
        self.url = url
        self.folder = Path(folder)
        self.timeout_s = timeout_s

    def body(self) -> dict[str, Any]:
        """The JSON body for the server behind :attr:`url`."""
        if self.url.rstrip("/").endswith("collective_rpc"):
            return {"method": "reload_weights"}
        return {"model_path": str(self.folder)}

    def push(self, model: Any, tokenizer: Any = None) -> None:
        """Write the weights (merged when LoRA) and trigger the server's reload."""
        import httpx

        self.folder.mkdir(parents=True, exist_ok=True)
        if hasattr(model, "merge_and_unload"):  # LoRA: merge into a copy, keep training adapters
            model = copy.deepcopy(model).merge_and_unload()
        to_save = model
        to_save.save_pretrained(self.folder)
        if tokenizer is not None and hasattr(tokenizer, "save_pretrained"):
            tokenizer.save_pretrained(self.folder)
        try:
            response = httpx.post(self.url, json=self.body(), timeout=self.timeout_s)
            response.raise_for_status()
        except httpx.HTTPError as e:
            raise PolicyError(f"weight reload at {self.url} failed: {e}") from e
        logger.info("weights pushed to %s via %s", self.folder, self.url)


__all__ = ["DiskReloadSync"]
